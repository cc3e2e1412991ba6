"""Common sense beyond the contract's models, checked on a compiled launch: the whole supply
allocated, deposit windows in order and ahead, vesting after deposits, no unknown fields,
the file agreeing with the profile (its key, its network), and, for a profile that targets
the public service, only the allocation types it takes now."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from solders.pubkey import Pubkey

from launchops.api.allocations import (
    LaunchpoolAllocation,
    LockedAllocation,
    PresaleAllocation,
    RaydiumAllocation,
)
from launchops.api.amounts import base_units, whole_tokens
from launchops.api.conditions import (
    TimeAbsolute,
)
from launchops.api.fields import Network, WireModel, field_path
from launchops.api.models import LaunchConfig
from launchops.config.reader import FileReader

Where = tuple[Any, ...]

# The wallet rule a file trips when the profile has no key it can read.
NO_KEY_KNOWN = "is required when no profile key is known (give wallet:)"


def check_profile(
    reader: FileReader,
    wallet_in_file: Pubkey | None,
    network_in_file: Network | None,
    wallet: Pubkey | None,
    network: Network | None,
    pinned_network: bool,
) -> None:
    """The file's wallet must be the profile's key; its network the profile's, if pinned."""
    if wallet_in_file is not None and wallet is not None and wallet_in_file != wallet:
        reader.problem(
            "wallet",
            f"is {wallet_in_file}, but the profile's key is {wallet}: they must match",
            ("wallet",),
        )
    mismatch = network_in_file is not None and network is not None and network_in_file != network
    if pinned_network and mismatch:
        reader.problem(
            "network", f"is {network_in_file}, but the profile sends to {network}", ("network",)
        )
    if wallet is None and wallet_in_file is None:
        reader.problem("wallet", NO_KEY_KNOWN, ())


def unknown_fields(model: Any, loc: tuple[Any, ...], reader: FileReader) -> None:
    """Raw allocations use the contract's models, which keep unknown fields: flag them."""
    if isinstance(model, WireModel):
        for name in model.model_extra or {}:
            reader.problem(field_path((*loc, name)), "is not a known field", (*loc, name))
        for name, field in type(model).model_fields.items():
            unknown_fields(getattr(model, name), (*loc, field.alias or name), reader)
    elif isinstance(model, list):
        for index, item in enumerate(model):
            unknown_fields(item, (*loc, index), reader)


def check_rules(config: LaunchConfig, form: str, reader: FileReader, now: datetime | None) -> None:
    """Common sense beyond the models: whole supply, times in order and ahead."""
    _whole_supply(config, form, reader)
    for index, allocation in enumerate(config.allocations):
        where: Where = (form, index) if form == "allocations" else (form,)
        if isinstance(allocation, LaunchpoolAllocation | PresaleAllocation):
            _window(allocation, form, where, reader, now)
        if isinstance(allocation, LockedAllocation):
            vesting = allocation.locked_v2.vesting.start_time
            deposit_end = _deposit_end(config)
            if deposit_end and vesting < deposit_end:
                loc = (form, "lockedAllocations") if form == "launchpool" else (form, index)
                message = f"vesting of {allocation.name!r} starts before deposits end"
                reader.problem(field_path(loc), message, loc)


RETIRED_LOCKED = (
    "lockedV2 (Streamflow) allocations are no longer accepted by the public service: it "
    "takes claimScheduleV2 for locked and vesting allocations, whose fields are not public "
    "yet. Leave them out (their supply then goes to the creator's unlocked allocation), or "
    "launch on the sandbox profile"
)
RETIRED_RAYDIUM = (
    "the public service takes no raydiumV2 allocation: Raydium liquidity is the RaydiumLP "
    "fund flow of a launchpool allocation (raydiumLiquidityBps in a launchpool: file)"
)


def check_public_service(config: LaunchConfig, form: str, reader: FileReader) -> None:
    """What the public service refuses now that the spec allowed: lockedV2, raydiumV2."""
    if form == "launchpool" and any(isinstance(a, LockedAllocation) for a in config.allocations):
        loc = (form, "lockedAllocations")
        reader.problem(field_path(loc), RETIRED_LOCKED, loc)
    if form != "allocations":
        return
    for index, allocation in enumerate(config.allocations):
        loc = (form, index)
        if isinstance(allocation, LockedAllocation):
            reader.problem(field_path(loc), RETIRED_LOCKED, loc)
        elif isinstance(allocation, RaydiumAllocation):
            reader.problem(field_path(loc), RETIRED_RAYDIUM, loc)


def _whole_supply(config: LaunchConfig, form: str, reader: FileReader) -> None:
    allocated = sum(base_units(b.supply, config.decimals) for b in config.buckets())
    if config.finalize and allocated != config.supply * 10**config.decimals:
        got = whole_tokens(allocated, config.decimals)
        message = f"a finalized launch must allocate its whole supply: {got} of {config.supply}"
        reader.problem(form, f"{message} tokens allocated", (form,))


def _window(
    allocation: LaunchpoolAllocation | PresaleAllocation,
    form: str,
    where: Where,
    reader: FileReader,
    now: datetime | None,
) -> None:
    """A deposit window that ends after it starts, claims after it, and a start ahead."""
    settings: Any = (
        allocation.launchpool_v2
        if isinstance(allocation, LaunchpoolAllocation)
        else allocation.presale_v2
    )
    start = _time(settings.deposit_start_condition)
    end = _time(settings.deposit_end_condition)
    claim = _time(settings.claim_start_condition)
    path = field_path(where)
    if start and end and end <= start:
        reader.problem(path, "the deposit window must end after it starts", where)
    if end and claim and claim < end:
        reader.problem(path, "claims must not start before deposits end", where)
    if now and start and start <= now:
        loc = (*where, "depositStartTime") if form != "allocations" else where
        reader.problem(path, f"the deposit start {start.isoformat()} is in the past", loc)


def _deposit_end(config: LaunchConfig) -> datetime | None:
    for allocation in config.allocations:
        if isinstance(allocation, LaunchpoolAllocation | PresaleAllocation):
            settings: Any = (
                allocation.launchpool_v2
                if isinstance(allocation, LaunchpoolAllocation)
                else allocation.presale_v2
            )
            return _time(settings.deposit_end_condition)
    return None


def _time(condition: Any) -> datetime | None:
    return condition.timestamp if isinstance(condition, TimeAbsolute) else None
