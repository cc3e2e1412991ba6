"""Recipes for people: a launchpool or a presale described by a few numbers, compiled into
the spec's allocations the way the public JS client's payload builder does.

Launchpool: a 48-hour deposit window from `depositStartTime`; claims open at graduation to
the Raydium pool and never close; `raydiumLiquidityBps` of the raise (and that share of
`tokenAllocation` in tokens) seeds the pool, the rest goes to `fundsRecipient`; locked
allocations vest through Streamflow; whatever supply remains is an unlocked "Creator
Allocation" to the wallet. Total supply 1,000,000,000 with 6 decimals, as the service's
recipe fixes it.

Bonding curve: the protocol's fixed curve (supply split, virtual reserves, a Raydium pool
it graduates to, never locked), creator fees to `creatorFeeWallet` and an optional first
buy of `firstBuyAmount` SOL by `firstBuyWallet`; each wallet defaults to the agent's, then
the creator's, exactly as the public client's payload builder does.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import ConfigDict, Field, WithJsonSchema, field_validator, model_validator
from solders.pubkey import Pubkey

from launchops.api.allocations import (
    BONDING_CURVE_LP_RAW,
    BONDING_CURVE_RAW,
    VIRTUAL_BASE_RAW,
    VIRTUAL_QUOTE_TOKENS,
    BondingCurveAllocation,
    BondingCurveSettings,
    Cliff,
    CustomUnlock,
    DurationValue,
    FirstBuy,
    LaunchpoolAllocation,
    LaunchpoolSettings,
    LinearUnlock,
    LockedAllocation,
    LockedSettings,
    PresaleAllocation,
    PresaleSettings,
    TimeUnit,
    UnlockedAllocation,
    UnlockedSettings,
    Vesting,
    check_duration,
    display_amount,
)
from launchops.api.amounts import Integer, QuoteAmount, SolAmount, TokenAmount
from launchops.api.conditions import (
    Always,
    BpsCurve,
    CreatorFee,
    LpLockSchedule,
    Never,
    RaydiumLP,
    TimeAbsolute,
    Triggered,
    UnlockedFunds,
    graduation,
)
from launchops.api.fields import PublicKey, Text, Timestamp, WireModel, iso_utc, rule

RECIPE_SUPPLY = 1_000_000_000
RECIPE_DECIMALS = 6
DEPOSIT_WINDOW = timedelta(hours=48)
LP_LOCK_SECONDS = 31_536_000  # one year
LP_LOCK_PERIOD_SECONDS = 7_883_982  # one quarter
DEPOSIT_BONUS = BpsCurve(
    enabled=True,
    point1_time_bps=5000,
    point1_bps=2500,
    point2_time_bps=7500,
    point2_bps=0,
    max_bps=2500,
)
WITHDRAW_PENALTY = BpsCurve(
    enabled=True,
    point1_time_bps=7500,
    point1_bps=0,
    point2_time_bps=10000,
    point2_bps=2500,
    max_bps=10000,
)


class StrictModel(WireModel):
    """A part of a launch file: camelCase keys, and a typo is an error, not ignored."""

    model_config = ConfigDict(extra="forbid")


class Duration(StrictModel):
    """A duration in a launch file: `value` `unit`s, at most 100 years."""

    value: DurationValue
    unit: TimeUnit

    @model_validator(mode="after")
    def _at_most_a_century(self) -> Duration:
        check_duration(self.value, self.unit, "value")
        return self


class CliffRecipe(StrictModel):
    """`cliff:` of a locked allocation: its `duration`, and `unlockAmount`, `linear` or a
    number of whole tokens released at the cliff."""

    duration: Duration
    unlock_amount: TokenAmount | str = "linear"


class LockedRecipe(StrictModel):
    """One of `lockedAllocations:`: `tokenAmount` whole tokens vesting to `recipient`
    through Streamflow, from `vestingStartTime` over `vestingDuration`, unlocking every
    `unlockSchedule`."""

    name: Text(1, 64)
    recipient: PublicKey
    token_amount: TokenAmount
    vesting_start_time: Timestamp
    vesting_duration: Duration
    unlock_schedule: TimeUnit
    cliff: CliffRecipe | None = None
    cancelable_by_sender: bool = False
    cancelable_by_recipient: bool = False
    transferable_by_sender: bool = False
    transferable_by_recipient: bool = False

    def compile(self) -> LockedAllocation:
        cliff = Cliff(enabled=False)
        if self.cliff is not None:
            amount = self.cliff.unlock_amount
            if isinstance(amount, str) and amount != "linear":
                raise rule("cliff", "cliff.unlockAmount must be 'linear' or a number of tokens")
            unlock = LinearUnlock() if amount == "linear" else CustomUnlock(value=amount)
            cliff = Cliff(
                enabled=True,
                duration_value=self.cliff.duration.value,
                duration_unit=self.cliff.duration.unit,
                unlock_amount=unlock,
            )
        vesting = Vesting(
            recipient=self.recipient,
            start_time=self.vesting_start_time,
            duration_value=self.vesting_duration.value,
            duration_unit=self.vesting_duration.unit,
            unlock_schedule=self.unlock_schedule,
            cliff=cliff,
            cancelable_by_sender=self.cancelable_by_sender,
            cancelable_by_recipient=self.cancelable_by_recipient,
            transferable_by_sender=self.transferable_by_sender,
            transferable_by_recipient=self.transferable_by_recipient,
        )
        return LockedAllocation(
            name=self.name, supply=self.token_amount, locked_v2=LockedSettings(vesting=vesting)
        )


class LaunchpoolRecipe(StrictModel):
    """`launchpool:`: `tokenAllocation` tokens for a 48-hour deposit window from
    `depositStartTime`, `raiseGoal` whole quote tokens to reach, and
    `raydiumLiquidityBps` (2000 to 10000) of the raise for the pool; compiled as the
    module's text says."""

    token_allocation: TokenAmount
    deposit_start_time: Timestamp
    raise_goal: QuoteAmount
    raydium_liquidity_bps: Integer(2000, 10_000, "10000 basis points")
    funds_recipient: PublicKey | None = None
    locked_allocations: list[LockedRecipe] = Field(default_factory=list)

    @field_validator("deposit_start_time")
    @classmethod
    def _window_in_the_calendar(cls, start: datetime) -> datetime:
        if start > datetime.max.replace(tzinfo=UTC) - DEPOSIT_WINDOW:
            raise rule(
                "timestamp",
                "the 48-hour deposit window must end by 9999-12-31T23:59:59Z "
                f"(got {iso_utc(start)})",
            )
        return start

    @model_validator(mode="after")
    def _within_supply(self) -> LaunchpoolRecipe:
        total = self.token_allocation + sum(a.token_amount for a in self.locked_allocations)
        if total > RECIPE_SUPPLY:
            raise rule(
                "supply",
                f"tokenAllocation plus lockedAllocations is {total:g} tokens, more than the "
                f"supply {RECIPE_SUPPLY}",
            )
        lp = self.token_allocation * self.raydium_liquidity_bps / 10_000
        if total + lp > RECIPE_SUPPLY:
            raise rule(
                "supply",
                f"with the pool's share ({lp:g} tokens) the launch needs {total + lp:g} tokens, "
                f"more than the supply {RECIPE_SUPPLY}",
            )
        return self

    @property
    def deposit_end_time(self) -> Any:
        return self.deposit_start_time + DEPOSIT_WINDOW

    def compile(self, wallet: Pubkey) -> list[Any]:
        start = TimeAbsolute(timestamp=self.deposit_start_time)
        end = TimeAbsolute(timestamp=self.deposit_end_time)
        bps = self.raydium_liquidity_bps
        lp_supply = _whole(self.token_allocation * bps / 10_000)
        flows: list[Any] = [
            UnlockedFunds(
                name="Unlocked",
                supply=0,
                percentage_bps=10_000 - bps,
                recipient=self.funds_recipient or wallet,
                claim_start_condition=graduation(),
                claim_end_condition=Never(),
            ),
            RaydiumLP(
                name="Liquidity Pool",
                supply=lp_supply,
                percentage_bps=bps,
                start_condition=end,
                lp_lock_schedule=LpLockSchedule(
                    enabled=True,
                    start_condition=end,
                    duration=LP_LOCK_SECONDS,
                    period=LP_LOCK_PERIOD_SECONDS,
                    cliff_condition=end,
                    cliff_amount_bps=0,
                ),
            ),
        ]
        # At 10000 bps too, both flows: the public client sends the UnlockedFunds at 0 bps.
        allocations: list[Any] = [
            LaunchpoolAllocation(
                name="Launchpool",
                supply=self.token_allocation,
                launchpool_v2=LaunchpoolSettings(
                    deposit_start_condition=start,
                    deposit_end_condition=end,
                    claim_start_condition=graduation(),
                    claim_end_condition=Never(),
                    minimum_quote_token_threshold=self.raise_goal,
                    deposit_bonus=DEPOSIT_BONUS,
                    withdraw_penalty=WITHDRAW_PENALTY,
                    fund_flows=flows,
                ),
            ),
            *(locked.compile() for locked in self.locked_allocations),
        ]
        used = (
            self.token_allocation + lp_supply + sum(a.token_amount for a in self.locked_allocations)
        )
        return _with_creator_remainder(allocations, used, wallet, graduation())


class PresaleRecipe(StrictModel):
    """`presale:`: `tokenAllocation` tokens sold for up to `quoteCap` whole quote
    tokens between `depositStartTime` and `depositEndTime`, claimed from
    `claimStartTime`; the raise goes to `fundsRecipient` (default: the creator), the
    rest of the supply to the creator."""

    token_allocation: TokenAmount
    quote_cap: QuoteAmount
    deposit_start_time: Timestamp
    deposit_end_time: Timestamp
    claim_start_time: Timestamp
    funds_recipient: PublicKey | None = None
    minimum_deposit: QuoteAmount | None = None
    deposit_limit: QuoteAmount | None = None

    @model_validator(mode="after")
    def _within_supply(self) -> PresaleRecipe:
        if self.token_allocation > RECIPE_SUPPLY:
            raise rule("supply", f"tokenAllocation is more than the supply {RECIPE_SUPPLY}")
        return self

    def compile(self, wallet: Pubkey) -> list[Any]:
        settings = PresaleSettings(
            allocation_quote_token_cap=self.quote_cap,
            deposit_start_condition=TimeAbsolute(timestamp=self.deposit_start_time),
            deposit_end_condition=TimeAbsolute(timestamp=self.deposit_end_time),
            claim_start_condition=TimeAbsolute(timestamp=self.claim_start_time),
            claim_end_condition=Never(),
            minimum_deposit_amount=self.minimum_deposit,
            deposit_limit=self.deposit_limit,
            funds_recipient=self.funds_recipient or wallet,
        )
        allocations: list[Any] = [
            PresaleAllocation(name="Presale", supply=self.token_allocation, presale_v2=settings)
        ]
        claim = TimeAbsolute(timestamp=self.claim_start_time)
        return _with_creator_remainder(allocations, self.token_allocation, wallet, claim)


SolText = Annotated[
    SolAmount,
    WithJsonSchema(
        {
            "type": ["string", "number"],
            "pattern": "^[0-9]+(\\.[0-9]{1,9})?$",
            "description": 'SOL as decimal text, e.g. "0.5" (at most 9 decimals)',
        }
    ),
]
KeypairSource = Annotated[
    str,
    Field(
        pattern=r"^(file|env|prefect-secret):.+$",
        description="a keypair source, as a profile's keypair: file:PATH (Solana CLI JSON), "
        "env:VAR (JSON or base58) or prefect-secret:NAME",
    ),
]


class BondingCurveRecipe(StrictModel):
    """`bondingCurve:`; every field optional (`bondingCurve: {}` is a plain curve)."""

    creator_fee_wallet: PublicKey | None = None
    first_buy_amount: SolText | None = None
    first_buy_wallet: KeypairSource | None = None

    @field_validator("first_buy_amount", mode="before")
    @classmethod
    def _zero_is_no_first_buy(cls, value: Any) -> Any:
        """`firstBuyAmount: 0` is no first buy (`firstBuy.enabled: false`), as the public
        client reads it."""
        if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
            return value
        try:
            return None if Decimal(str(value).strip()) == 0 else value
        except InvalidOperation:
            return value

    @model_validator(mode="after")
    def _a_wallet_buys_an_amount(self) -> BondingCurveRecipe:
        if self.first_buy_wallet is not None and self.first_buy_amount is None:
            raise rule("first_buy", "firstBuyWallet buys nothing without firstBuyAmount")
        return self

    def compile(
        self, wallet: Pubkey, agent_wallet: Pubkey | None, buyer: Pubkey | None
    ) -> list[Any]:
        """The one bondingCurveV2 allocation the public client builds; `buyer` is the first
        buyer's key when `firstBuyWallet` gives one."""
        default = agent_wallet or wallet
        fee = CreatorFee(enabled=True, wallet=self.creator_fee_wallet or default)
        first_buy = (
            FirstBuy(enabled=True, buyer=buyer or default, amount=self.first_buy_amount)
            if self.first_buy_amount is not None
            else FirstBuy(enabled=False)
        )
        pool = RaydiumLP(
            name="Liquidity Pool",
            supply=display_amount(BONDING_CURVE_LP_RAW),
            percentage_bps=10_000,
            start_condition=Always(),
            # Never locked: Never start and cliff; duration and period 1/1 as the API needs.
            lp_lock_schedule=LpLockSchedule(
                enabled=True,
                start_condition=Never(),
                duration=1,
                period=1,
                cliff_condition=Never(),
                cliff_amount_bps=0,
            ),
            creator_fee=fee,
        )
        curve = BondingCurveSettings(
            swap_start_condition=Always(),
            swap_end_condition=Triggered(),
            virtual_base_tokens=display_amount(VIRTUAL_BASE_RAW),
            virtual_quote_tokens=VIRTUAL_QUOTE_TOKENS,
            first_buy=first_buy,
            creator_fee=fee,
            fund_flows=[pool],
        )
        return [
            BondingCurveAllocation(
                name="Bonding Curve",
                supply=display_amount(BONDING_CURVE_RAW),
                bonding_curve_v2=curve,
            )
        ]


def _with_creator_remainder(
    allocations: list[Any], used: float, wallet: Pubkey, claim_start: Any
) -> list[Any]:
    remaining = _whole(RECIPE_SUPPLY - used)
    if remaining > 0:
        allocations.append(
            UnlockedAllocation(
                name="Creator Allocation",
                supply=remaining,
                unlocked_v2=UnlockedSettings(
                    recipient=wallet, claim_start_condition=claim_start, claim_end_condition=Never()
                ),
            )
        )
    return allocations


def _whole(value: float) -> int | float:
    """Whole-token amounts as ints, so the wire reads 250000000, not 250000000.0."""
    return int(value) if float(value).is_integer() else value
