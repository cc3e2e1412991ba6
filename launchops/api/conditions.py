"""The conditions of a launch's windows (when a deposit or a claim starts and ends) and
the fund flows of a raise (where it goes), as the public JS client sends them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from launchops.api.amounts import (
    Bps,
    Integer,
    Seconds,
    TimeOffset,
    TokenAmountOrZero,
)
from launchops.api.fields import PublicKey, Text, Timestamp, WireModel, rule

# ── Conditions ──────────────────────────────────────────────────────────────


class TimeAbsolute(WireModel):
    """A condition met at `timestamp`, a fixed moment (ISO 8601, UTC, on the wire)."""

    type: Literal["TimeAbsolute"] = "TimeAbsolute"
    timestamp: Timestamp


class Never(WireModel):
    """A condition never met: an end that never comes (claims open for good), a lock
    that never starts."""

    type: Literal["Never"] = "Never"


class Always(WireModel):
    """A condition met from the start: a bonding curve's swaps, its pool's liquidity."""

    type: Literal["Always"] = "Always"


class Triggered(WireModel):
    """A condition the program meets on an event, not at a time: the end of a bonding
    curve's swaps (its graduation)."""

    type: Literal["Triggered"] = "Triggered"


class TimeRelativeToUnknownAddress(WireModel):
    """A time relative to a bucket the service resolves at build time (e.g. graduation)."""

    type: Literal["TimeRelativeToUnknownAddress"] = "TimeRelativeToUnknownAddress"
    bucket_type: str = "raydiumV2"
    bucket_index: Integer(0, 255) = 0
    bucket_time: str = "Graduate"
    time_offset: TimeOffset = 0


Condition = Annotated[
    TimeAbsolute | Never | Always | Triggered | TimeRelativeToUnknownAddress,
    Field(discriminator="type"),
]


def graduation() -> TimeRelativeToUnknownAddress:
    """The moment the launch graduates to its Raydium pool."""
    return TimeRelativeToUnknownAddress()


# ── Launchpool ──────────────────────────────────────────────────────────────


class BpsCurve(WireModel):
    """A deposit bonus or withdraw penalty curve over the deposit window."""

    enabled: bool
    point1_time_bps: Bps = 0
    point1_bps: Bps = 0
    point2_time_bps: Bps = 0
    point2_bps: Bps = 0
    max_bps: Bps = 0


class LpLockSchedule(WireModel):
    """How the pool's LP tokens are locked: from `startCondition`, over `duration`
    seconds, released every `period` seconds, `cliffAmountBps` at the cliff. A bonding
    curve's pool sends one that never starts (never locked)."""

    enabled: bool
    start_condition: Condition
    duration: Seconds
    period: Seconds
    cliff_condition: Condition
    cliff_amount_bps: Bps = 0


class UnlockedFunds(WireModel):
    """Share of the raised quote tokens sent to a recipient."""

    type: Literal["UnlockedFunds"] = "UnlockedFunds"
    name: Text(1, 64)
    supply: TokenAmountOrZero = 0
    percentage_bps: Bps
    recipient: PublicKey
    claim_start_condition: Condition
    claim_end_condition: Condition


class CreatorFee(WireModel):
    """Trading fees of a bonding curve (and of its pool) to a wallet."""

    enabled: bool
    wallet: PublicKey | None = None

    @model_validator(mode="after")
    def _wallet_when_enabled(self) -> CreatorFee:
        if self.enabled and self.wallet is None:
            raise rule("creator_fee", "an enabled creatorFee needs a wallet")
        return self


class RaydiumLP(WireModel):
    """Share of the raised quote tokens paired with `supply` tokens in the Raydium pool."""

    type: Literal["RaydiumLP"] = "RaydiumLP"
    name: Text(1, 64)
    supply: TokenAmountOrZero
    percentage_bps: Bps
    start_condition: Condition
    lp_lock_schedule: LpLockSchedule | None = None
    creator_fee: CreatorFee | None = None  # a bonding curve's pool


FundFlow = Annotated[UnlockedFunds | RaydiumLP, Field(discriminator="type")]
