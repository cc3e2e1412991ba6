"""A launch in the Genesis program's own words: the instructions the sandbox's
`/launches/create` answers, built with `launchops.genesis` (the JS client's layouts).

In order: `initializeV2` (the mint, its Token Metadata, the genesis account and its
escrow, all made by the program); one bucket per allocation and per fund flow, each
`add...BucketV2` with the launch file's amount, conditions, recipients and curve, then
the instructions that complete it (a launch pool's or a presale's extensions, and the end
behaviors that send its raise to the flows' buckets); `finalizeV2` and `revokeV2` (mint
and freeze authority) where the launch finalizes; and, for a bonding curve with a first
buy, the buyer's `swapBondingCurveV2`, after the launch is final. A fund flow's recipient
(`UnlockedFunds`, a presale's `fundsRecipient`) is an unlocked bucket of no tokens that
the raise's share is sent to.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from solders.pubkey import Pubkey

import launchops.genesis.types as t
from launchops.api.allocations import PresaleAllocation, fund_flows
from launchops.api.amounts import base_units
from launchops.api.conditions import (
    Always,
    Never,
    RaydiumLP,
    TimeAbsolute,
    TimeRelativeToUnknownAddress,
    Triggered,
)
from launchops.api.models import LaunchConfig
from launchops.genesis.codec import variant
from launchops.genesis.pdas import NATIVE_MINT, find_bucket_v2, find_genesis_account_v2

KINDS = {
    "launchpoolV2": "LaunchPoolBucketV2",
    "presaleV2": "PresaleBucketV2",
    "unlockedV2": "UnlockedBucketV2",
    "lockedV2": "StreamflowBucketV2",
    "raydiumV2": "RaydiumCpmmBucketV2",
    "bondingCurveV2": "BondingCurveBucketV2",
    "RaydiumLP": "RaydiumCpmmBucketV2",
    "UnlockedFunds": "UnlockedBucketV2",
    "fundsRecipient": "UnlockedBucketV2",
}
QUOTE_DECIMALS = {NATIVE_MINT: 9}  # else USDC's 6


@dataclass(frozen=True)
class PlannedBucket:
    """One bucket of a launch: where it comes from in the file, the Genesis account it is."""

    name: str
    source: str  # an allocation's `type`, a fund flow's, or "fundsRecipient" (a presale's)
    kind: str  # the Genesis account: "LaunchPoolBucketV2", ...
    index: int
    address: Pubkey
    allocation: int  # base units of the supply it holds
    settings: Any  # the allocation or fund flow of the file
    parent: int | None = None  # a fund flow's: the bucket whose raise it receives


@dataclass(frozen=True)
class GenesisPlan:
    """A launch as the Genesis program holds it: its mint, its genesis account (the PDA of
    the mint and index 0), who pays and is its authority, and its buckets in order."""

    mint: Pubkey
    genesis: Pubkey
    creator: Pubkey
    quote_mint: Pubkey
    total: int  # the supply in base units
    buckets: tuple[PlannedBucket, ...]

    def of(self, source: str) -> list[PlannedBucket]:
        return [b for b in self.buckets if b.source == source]


def plan(config: LaunchConfig, creator: Pubkey, mint: Pubkey) -> GenesisPlan:
    """The buckets a launch makes, each with its PDA (by kind, in order of kind)."""
    genesis = find_genesis_account_v2(mint, config.genesis_index)[0]
    counters: dict[str, int] = {}
    buckets: list[PlannedBucket] = []

    def add(name: str, source: str, allocation: int, settings: Any, parent: int | None) -> None:
        kind = KINDS[source]
        index = counters.get(kind, 0)
        counters[kind] = index + 1
        address = find_bucket_v2(kind, genesis, index)[0]
        buckets.append(
            PlannedBucket(name, source, kind, index, address, allocation, settings, parent)
        )

    for allocation in config.allocations:
        add(
            allocation.name,
            allocation.type,
            base_units(allocation.supply, config.decimals),
            allocation,
            None,
        )
    for at, allocation in enumerate(list(buckets)):
        for flow in fund_flows(allocation.settings):
            if isinstance(flow, RaydiumLP) and flow.supply <= 0:
                continue
            add(flow.name, flow.type, base_units(flow.supply, config.decimals), flow, at)
        if isinstance(allocation.settings, PresaleAllocation):
            recipient = allocation.settings.presale_v2.funds_recipient
            if recipient is not None:
                add("Presale funds", "fundsRecipient", 0, recipient, at)
    total = config.supply * 10**config.decimals
    return GenesisPlan(mint, genesis, creator, config.quote_mint, total, tuple(buckets))


# ── conditions and amounts ──────────────────────────────────────────────────


def condition(value: Any, launch: GenesisPlan) -> dict[str, Any]:
    """The Genesis condition of a launch file's condition."""
    if isinstance(value, TimeAbsolute):
        return t.time_absolute(int(value.timestamp.timestamp()))
    if isinstance(value, TimeRelativeToUnknownAddress):
        kind = KINDS[value.bucket_type]
        bucket = find_bucket_v2(kind, launch.genesis, value.bucket_index)[0]
        return t.time_relative(bucket, t.BucketTimes[value.bucket_time], value.time_offset)
    if isinstance(value, Always):
        return t.always()
    if isinstance(value, Never):
        return t.never()
    if isinstance(value, Triggered):
        return t.triggered()
    raise ValueError(f"no Genesis condition for {value!r}")


def quote_units(amount: Decimal | int | float, quote_mint: Pubkey) -> int:
    """Base units of an amount of whole quote tokens (SOL: lamports)."""
    return base_units(amount, QUOTE_DECIMALS.get(quote_mint, 6))


def behaviors(launch: GenesisPlan, parent: int) -> list[dict[str, Any]]:
    """The end behaviors of an inflow bucket: each of its fund flows' share of the raise,
    sent to that flow's bucket."""
    found = []
    for bucket in launch.buckets:
        if bucket.parent != parent:
            continue
        share = 10_000 if bucket.source == "fundsRecipient" else bucket.settings.percentage_bps
        found.append(
            variant(
                "SendQuoteTokenPercentage", percentageBps=share, destinationBucket=bucket.address
            )
        )
    return found


__all__ = ["GenesisPlan", "PlannedBucket", "behaviors", "condition", "plan", "quote_units"]
