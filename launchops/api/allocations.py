"""Allocations of a launch: a union discriminated by `type`, one sub-object per type.

Wire shapes as the public JS client sends them (shared notes, genesis-api.md): every
allocation is `{type, name, supply, <type>: {...settings}}`; `supply` is in whole tokens.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, model_validator

from launchops.api.amounts import (
    MAX_SECONDS,
    YEAR_SECONDS,
    Integer,
    QuoteAmount,
    QuoteAmountOrZero,
    SolAmount,
    TokenAmount,
)
from launchops.api.conditions import (
    BpsCurve,
    Condition,
    CreatorFee,
    FundFlow,
)
from launchops.api.fields import PublicKey, Text, Timestamp, WireModel, rule


class LaunchpoolSettings(WireModel):
    """`launchpoolV2` of a launchpool allocation: the deposit and claim windows,
    the raise's minimum (`minimumQuoteTokenThreshold`, whole quote tokens), the
    bonus and penalty curves, and where the raise goes (`fundFlows`, adding to
    10000 bps when given)."""

    deposit_start_condition: Condition
    deposit_end_condition: Condition
    claim_start_condition: Condition
    claim_end_condition: Condition
    minimum_quote_token_threshold: QuoteAmount
    deposit_bonus: BpsCurve | None = None
    withdraw_penalty: BpsCurve | None = None
    fund_flows: list[FundFlow] = Field(default_factory=list)

    @model_validator(mode="after")
    def _fund_flows_add_up(self) -> LaunchpoolSettings:
        if self.fund_flows:
            total = sum(flow.percentage_bps for flow in self.fund_flows)
            if total != 10_000:
                raise rule("bps_total", f"fundFlows percentageBps must add to 10000 (got {total})")
        return self


# ── Bonding curve ───────────────────────────────────────────────────────────

BONDING_CURVE_DECIMALS = 6
BONDING_CURVE_SUPPLY = 1_000_000_000
# The protocol's fixed split, in base units at 6 decimals (the public client's constants).
BONDING_CURVE_RAW = 717_948_717_948_717
BONDING_CURVE_LP_RAW = 282_051_282_051_283
VIRTUAL_BASE_RAW = 464_555_052_790_349
VIRTUAL_QUOTE_TOKENS = 55


def display_amount(raw: int, decimals: int = BONDING_CURVE_DECIMALS) -> float:
    """Base units as the public client writes them on the wire: whole plus fraction, added
    as floating point (so the JSON number is the very one it sends)."""
    whole, fraction = divmod(raw, 10**decimals)
    return float(whole) + float(fraction) / float(10**decimals)


class FirstBuy(WireModel):
    """The curve's mandatory first swap: from `buyer`, for exactly `amount` SOL."""

    enabled: bool
    buyer: PublicKey | None = None
    amount: SolAmount | None = None

    @model_validator(mode="after")
    def _buyer_and_amount_when_enabled(self) -> FirstBuy:
        if self.enabled and (self.buyer is None or self.amount is None):
            raise rule("first_buy", "an enabled firstBuy needs a buyer and an amount")
        return self


class BondingCurveSettings(WireModel):
    """`bondingCurveV2` of a bonding-curve allocation: the swap window, the virtual
    reserves (whole tokens), the first buy, the creator fee, and the pool it graduates to
    (`fundFlows`, adding to 10000 bps)."""

    swap_start_condition: Condition
    swap_end_condition: Condition
    virtual_base_tokens: TokenAmount
    virtual_quote_tokens: QuoteAmount
    first_buy: FirstBuy = Field(default_factory=lambda: FirstBuy(enabled=False))
    creator_fee: CreatorFee
    fund_flows: list[FundFlow] = Field(default_factory=list)

    @model_validator(mode="after")
    def _fund_flows_add_up(self) -> BondingCurveSettings:
        total = sum(flow.percentage_bps for flow in self.fund_flows)
        if self.fund_flows and total != 10_000:
            raise rule("bps_total", f"fundFlows percentageBps must add to 10000 (got {total})")
        return self


# ── Presale, unlocked, locked, raydium ─────────────────────────────────────


class PresaleSettings(WireModel):
    """`presaleV2` of a presale allocation: the cap on the raise
    (`allocationQuoteTokenCap`, whole quote tokens), the deposit and claim
    windows, an optional minimum and limit of a deposit, and `fundsRecipient`,
    where the raise goes."""

    allocation_quote_token_cap: QuoteAmount
    deposit_start_condition: Condition
    deposit_end_condition: Condition
    claim_start_condition: Condition
    claim_end_condition: Condition
    minimum_deposit_amount: QuoteAmountOrZero | None = None
    deposit_limit: QuoteAmount | None = None
    funds_recipient: PublicKey | None = None  # where the raise goes


class UnlockedSettings(WireModel):
    """`unlockedV2` of an unlocked allocation: `recipient` claims the tokens, no vesting,
    between the two conditions."""

    recipient: PublicKey
    claim_start_condition: Condition
    claim_end_condition: Condition


class TimeUnit(StrEnum):
    """Unit of a duration and of a vesting's unlock schedule; `UNIT_SECONDS` says how
    long each is (a month is a twelfth of 365.25 days)."""

    SECOND = "SECOND"
    MINUTE = "MINUTE"
    HOUR = "HOUR"
    DAY = "DAY"
    WEEK = "WEEK"
    TWO_WEEKS = "TWO_WEEKS"
    MONTH = "MONTH"
    QUARTER = "QUARTER"
    YEAR = "YEAR"


class LinearUnlock(WireModel):
    """`unlockAmount` of a cliff: at the cliff, what linear vesting would have released by then."""

    type: Literal["linear"] = "linear"


UNIT_SECONDS = {
    TimeUnit.SECOND: 1,
    TimeUnit.MINUTE: 60,
    TimeUnit.HOUR: 3600,
    TimeUnit.DAY: 86_400,
    TimeUnit.WEEK: 604_800,
    TimeUnit.TWO_WEEKS: 1_209_600,
    TimeUnit.MONTH: YEAR_SECONDS // 12,
    TimeUnit.QUARTER: YEAR_SECONDS // 4,
    TimeUnit.YEAR: YEAR_SECONDS,
}
DurationValue = Integer(1, MAX_SECONDS)


def check_duration(value: int | None, unit: TimeUnit | None, field: str) -> None:
    """At most 100 years, whatever the unit: `5000 YEAR` is refused, not overflowed later."""
    if value is not None and unit is not None and value * UNIT_SECONDS[unit] > MAX_SECONDS:
        raise rule("duration", f"{field} {value} {unit.value} is longer than 100 years")


class CustomUnlock(WireModel):
    """`unlockAmount` of a cliff: `value` whole tokens released at the cliff."""

    type: Literal["custom"] = "custom"
    value: TokenAmount


class Cliff(WireModel):
    """A vesting's cliff: when `enabled`, nothing unlocks for `durationValue`
    `durationUnit`s (at most 100 years), then `unlockAmount` does."""

    enabled: bool
    duration_value: DurationValue | None = None
    duration_unit: TimeUnit | None = None
    unlock_amount: Annotated[LinearUnlock | CustomUnlock, Field(discriminator="type")] | None = None

    @model_validator(mode="after")
    def _at_most_a_century(self) -> Cliff:
        check_duration(self.duration_value, self.duration_unit, "durationValue")
        return self


class Vesting(WireModel):
    """A Streamflow stream to `recipient`: from `startTime`, over `durationValue`
    `durationUnit`s (at most 100 years), unlocking every `unlockSchedule`, after its
    `cliff`; the flags say who may cancel or transfer it."""

    recipient: PublicKey
    start_time: Timestamp
    duration_value: DurationValue
    duration_unit: TimeUnit
    unlock_schedule: TimeUnit
    cliff: Cliff = Field(default_factory=lambda: Cliff(enabled=False))
    cancelable_by_sender: bool = False
    cancelable_by_recipient: bool = False
    transferable_by_sender: bool = False
    transferable_by_recipient: bool = False

    @model_validator(mode="after")
    def _at_most_a_century(self) -> Vesting:
        check_duration(self.duration_value, self.duration_unit, "durationValue")
        return self


class LockedSettings(WireModel):
    """`lockedV2` of a locked allocation: its tokens vest through Streamflow (`vesting`)."""

    type: Literal["streamflow"] = "streamflow"
    vesting: Vesting


class RaydiumSettings(WireModel):
    """Settings of the liquidity-pool bucket; the service defines them, we keep them."""


# ── Allocations ─────────────────────────────────────────────────────────────


class AllocationBase(WireModel):
    """What every allocation has: a `name` (1 to 64 characters) and a `supply` in whole
    tokens, not base units."""

    name: Text(1, 64)
    supply: TokenAmount = Field(description="whole tokens, not base units; at most 10^18")


class LaunchpoolAllocation(AllocationBase):
    """A `launchpoolV2` bucket: `supply` tokens for those who deposit quote tokens in its window."""

    type: Literal["launchpoolV2"] = "launchpoolV2"
    launchpool_v2: LaunchpoolSettings = Field(alias="launchpoolV2")


class RaydiumAllocation(AllocationBase):
    """A `raydiumV2` bucket: `supply` tokens for the Raydium pool; its settings
    are the service's."""

    type: Literal["raydiumV2"] = "raydiumV2"
    raydium_v2: RaydiumSettings = Field(default_factory=RaydiumSettings, alias="raydiumV2")


class UnlockedAllocation(AllocationBase):
    """An `unlockedV2` bucket: `supply` tokens a recipient claims without vesting."""

    type: Literal["unlockedV2"] = "unlockedV2"
    unlocked_v2: UnlockedSettings = Field(alias="unlockedV2")


class LockedAllocation(AllocationBase):
    """A `lockedV2` bucket: `supply` tokens vesting to a recipient through Streamflow."""

    type: Literal["lockedV2"] = "lockedV2"
    locked_v2: LockedSettings = Field(alias="lockedV2")


class PresaleAllocation(AllocationBase):
    """A `presaleV2` bucket: `supply` tokens sold for quote tokens, up to the presale's cap."""

    type: Literal["presaleV2"] = "presaleV2"
    presale_v2: PresaleSettings = Field(alias="presaleV2")


class BondingCurveAllocation(AllocationBase):
    """A `bondingCurveV2` bucket: `supply` tokens sold along the protocol's fixed curve
    until it graduates to its Raydium pool."""

    type: Literal["bondingCurveV2"] = "bondingCurveV2"
    bonding_curve_v2: BondingCurveSettings = Field(alias="bondingCurveV2")


Allocation = Annotated[
    LaunchpoolAllocation
    | RaydiumAllocation
    | UnlockedAllocation
    | LockedAllocation
    | PresaleAllocation
    | BondingCurveAllocation,
    Field(discriminator="type"),
]

ALLOCATION_TYPES = (
    "launchpoolV2",
    "raydiumV2",
    "unlockedV2",
    "lockedV2",
    "presaleV2",
    "bondingCurveV2",
)


def fund_flows(allocation: object) -> list[FundFlow]:
    """The fund flows of a launchpool or a bonding curve (none for other allocations)."""
    if isinstance(allocation, LaunchpoolAllocation):
        return list(allocation.launchpool_v2.fund_flows)
    if isinstance(allocation, BondingCurveAllocation):
        return list(allocation.bonding_curve_v2.fund_flows)
    return []
