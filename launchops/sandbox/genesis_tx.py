"""The instructions of a launch's create answer, in order, from its Genesis plan
(`genesis_create.plan`): see that module for what each does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from solders.instruction import Instruction
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from spl.token.instructions import create_idempotent_associated_token_account, sync_native
from spl.token.models import SyncNativeParams

import launchops.genesis.types as t
from launchops.api.allocations import UNIT_SECONDS, LockedAllocation
from launchops.api.amounts import base_units, lamports
from launchops.api.conditions import Always
from launchops.api.models import LaunchConfig
from launchops.genesis.codec import variant
from launchops.genesis.instructions import build_instruction
from launchops.genesis.pdas import TOKEN_PROGRAM
from launchops.sandbox.genesis_create import (
    GenesisPlan,
    PlannedBucket,
    behaviors,
    condition,
    quote_units,
)

STREAM_NAME_BYTES = 64


def create_units(config: LaunchConfig, launch: GenesisPlan) -> list[list[Instruction]]:
    """Every instruction of the create but the first buy, in order, in units that go in one
    transaction together: `initializeV2`; each bucket's add and what completes it; the end
    behaviors, `finalizeV2` and `revokeV2` with the last bucket. Each unit makes an account
    (the mint, a bucket) that proves its transaction landed."""
    units = [[_initialize(config, launch)]]
    for at, bucket in enumerate(launch.buckets):
        units.append(_add(config, launch, bucket, at))
    for at, bucket in enumerate(launch.buckets):  # once every bucket they send to is there
        units[-1] += _set_behaviors(launch, bucket, at)
    if config.finalize:
        accounts = {"genesisAccount": launch.genesis, "baseMint": launch.mint}
        units[-1].append(_build("finalizeV2", {}, accounts, launch))
        revoke = {"revokeMintAuthority": True, "revokeFreezeAuthority": True}
        programs = {**accounts, "baseTokenProgram": TOKEN_PROGRAM}
        units[-1].append(_build("revokeV2", revoke, programs, launch))
    return units


def _build(
    name: str, args: dict[str, Any], accounts: dict[str, Pubkey], launch: GenesisPlan, **more: Any
) -> Instruction:
    roles = {"authority": launch.creator, **accounts}
    return build_instruction(
        name, args, roles, payer=launch.creator, identity=launch.creator, **more
    )


def _initialize(config: LaunchConfig, launch: GenesisPlan) -> Instruction:
    args = {
        "decimals": config.decimals,
        "genesisIndex": config.genesis_index,
        "fundingMode": 0,
        "totalSupplyBaseToken": launch.total,
        "name": config.name,
        "uri": config.image,
        "symbol": config.symbol,
    }
    accounts = {"baseMint": launch.mint, "quoteMint": launch.quote_mint}
    return _build("initializeV2", args, accounts, launch, signers=("baseMint",))


def _add(
    config: LaunchConfig, launch: GenesisPlan, bucket: PlannedBucket, at: int
) -> list[Instruction]:
    """The instructions that add `bucket` (at place `at`) and complete it."""
    accounts = {
        "genesisAccount": launch.genesis,
        "bucket": bucket.address,
        "baseMint": launch.mint,
        "quoteMint": launch.quote_mint,
    }
    head = {"bucketIndex": bucket.index, "baseTokenAllocation": bucket.allocation}
    adder = _ADDERS[bucket.source]
    return adder(config, launch, bucket, at, accounts, head)


def _launchpool(
    config: LaunchConfig,
    launch: GenesisPlan,
    bucket: PlannedBucket,
    at: int,
    accounts: dict[str, Pubkey],
    head: dict[str, Any],
) -> list[Instruction]:
    settings = bucket.settings.launchpool_v2
    args = {**head, **_windows(settings, launch)}
    found = [_build("addLaunchPoolBucketV2Base", args, accounts, launch)]
    threshold = quote_units(settings.minimum_quote_token_threshold, launch.quote_mint)
    extension = variant(
        "MinimumQuoteTokenThreshold", minimumQuoteTokenThreshold={"amount": threshold}
    )
    given = {"genesisAccount": launch.genesis, "bucket": bucket.address}
    found.append(
        _build("addLaunchPoolBucketV2Extensions", {"extensions": [extension]}, given, launch)
    )
    return found


SETS_BEHAVIORS = {
    "launchpoolV2": "setLaunchPoolBucketV2Behaviors",
    "presaleV2": "setPresaleBucketV2Behaviors",
}


def _set_behaviors(launch: GenesisPlan, bucket: PlannedBucket, at: int) -> list[Instruction]:
    """Where an inflow bucket's raise goes at its end: each fund flow's share."""
    name = SETS_BEHAVIORS.get(bucket.source)
    sends = behaviors(launch, at) if name else []
    if not name or not sends:
        return []
    given = {"genesisAccount": launch.genesis, "bucket": bucket.address}
    return [_build(name, {"endBehaviors": sends}, given, launch)]


def _presale(
    config: LaunchConfig,
    launch: GenesisPlan,
    bucket: PlannedBucket,
    at: int,
    accounts: dict[str, Pubkey],
    head: dict[str, Any],
) -> list[Instruction]:
    settings = bucket.settings.presale_v2
    cap = quote_units(settings.allocation_quote_token_cap, launch.quote_mint)
    args = {**head, "allocationQuoteTokenCap": cap, **_windows(settings, launch)}
    found = [_build("addPresaleBucketV2Base", args, accounts, launch)]
    given = {"genesisAccount": launch.genesis, "bucket": bucket.address}
    extensions = []
    if settings.minimum_deposit_amount is not None:
        amount = quote_units(settings.minimum_deposit_amount, launch.quote_mint)
        extensions.append(variant("MinimumDepositAmount", minimumDepositAmount={"amount": amount}))
    if settings.deposit_limit is not None:
        limit = quote_units(settings.deposit_limit, launch.quote_mint)
        extensions.append(variant("DepositLimit", depositLimit={"limit": limit}))
    if extensions:
        found.append(
            _build("addPresaleBucketV2Extensions", {"extensions": extensions}, given, launch)
        )
    return found


def _windows(settings: Any, launch: GenesisPlan) -> dict[str, Any]:
    names = ("deposit_start", "deposit_end", "claim_start", "claim_end")
    return {
        _camel(name) + "Condition": condition(getattr(settings, f"{name}_condition"), launch)
        for name in names
    }


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def _unlocked(
    config: LaunchConfig,
    launch: GenesisPlan,
    bucket: PlannedBucket,
    at: int,
    accounts: dict[str, Pubkey],
    head: dict[str, Any],
) -> list[Instruction]:
    """An unlocked allocation, a launch pool's `UnlockedFunds` flow, or a presale's funds
    recipient (no tokens: its share of the raise), claimable by its recipient."""
    if bucket.source == "fundsRecipient":
        parent = launch.buckets[bucket.parent].settings.presale_v2
        recipient, start, end = (
            bucket.settings,
            parent.claim_start_condition,
            parent.claim_end_condition,
        )
    else:
        settings = bucket.settings.unlocked_v2 if bucket.source == "unlockedV2" else bucket.settings
        recipient = settings.recipient
        start, end = settings.claim_start_condition, settings.claim_end_condition
    args = {
        **head,
        "claimStartCondition": condition(start, launch),
        "claimEndCondition": condition(end, launch),
    }
    return [_build("addUnlockedBucketV2", args, {**accounts, "recipient": recipient}, launch)]


def _locked(
    config: LaunchConfig,
    launch: GenesisPlan,
    bucket: PlannedBucket,
    at: int,
    accounts: dict[str, Pubkey],
    head: dict[str, Any],
) -> list[Instruction]:
    allocation: LockedAllocation = bucket.settings
    vesting = allocation.locked_v2.vesting
    duration = vesting.duration_value * UNIT_SECONDS[vesting.duration_unit]
    start = vesting.start_time
    args = {
        **head,
        "config": streamflow_config(allocation, bucket.allocation, config.decimals),
        "lockStartCondition": t.time_absolute(int(start.timestamp())),
        "lockEndCondition": t.time_absolute(int((start + timedelta(seconds=duration)).timestamp())),
    }
    return [
        _build("addStreamflowBucketV2", args, {**accounts, "recipient": vesting.recipient}, launch)
    ]


def streamflow_config(allocation: LockedAllocation, amount: int, decimals: int) -> dict[str, Any]:
    """The Streamflow stream a locked allocation is: its start, period (the unlock
    schedule), amount a period, cliff, name and flags."""
    vesting = allocation.locked_v2.vesting
    period = UNIT_SECONDS[vesting.unlock_schedule]
    duration = vesting.duration_value * UNIT_SECONDS[vesting.duration_unit]
    periods = max(duration // period, 1)
    start = int(vesting.start_time.timestamp())
    cliff, cliff_amount = start, 0
    if vesting.cliff.enabled and vesting.cliff.duration_value and vesting.cliff.duration_unit:
        cliff = start + vesting.cliff.duration_value * UNIT_SECONDS[vesting.cliff.duration_unit]
        unlock = vesting.cliff.unlock_amount
        if unlock is not None and unlock.type == "custom":
            cliff_amount = base_units(unlock.value, decimals)
        else:  # linear: what the stream would have released by then
            cliff_amount = amount * min(cliff - start, duration) // duration
    name = allocation.name.encode()[:STREAM_NAME_BYTES].ljust(STREAM_NAME_BYTES, b"\0")
    return {
        "startTime": start,
        "period": period,
        "amountPerPeriod": (amount - cliff_amount) // periods,
        "cliff": cliff,
        "cliffAmount": cliff_amount,
        "streamName": name,
        "withdrawFrequency": period,
        "cancelableBySender": vesting.cancelable_by_sender,
        "cancelableByRecipient": vesting.cancelable_by_recipient,
        "automaticWithdrawal": False,
        "transferableBySender": vesting.transferable_by_sender,
        "transferableByRecipient": vesting.transferable_by_recipient,
        "canTopup": False,
        "pausable": False,
        "canUpdateRate": False,
    }


def _raydium(
    config: LaunchConfig,
    launch: GenesisPlan,
    bucket: PlannedBucket,
    at: int,
    accounts: dict[str, Pubkey],
    head: dict[str, Any],
) -> list[Instruction]:
    start = getattr(bucket.settings, "start_condition", None) or Always()
    args = {**head, "startCondition": condition(start, launch), "deferPoolCreationCost": False}
    roles = {
        "genesisAccount": launch.genesis,
        "bucket": bucket.address,
        "baseMint": launch.mint,
        "quoteMint": launch.quote_mint,
    }
    return [_build("addRaydiumCpmmBucketV2Base", args, roles, launch)]


def _curve(
    config: LaunchConfig,
    launch: GenesisPlan,
    bucket: PlannedBucket,
    at: int,
    accounts: dict[str, Pubkey],
    head: dict[str, Any],
) -> list[Instruction]:
    settings = bucket.settings.bonding_curve_v2
    buy = settings.first_buy
    fee = settings.creator_fee
    args = {
        **head,
        "swapStartCondition": condition(settings.swap_start_condition, launch),
        "swapEndCondition": condition(settings.swap_end_condition, launch),
        "virtualSol": quote_units(settings.virtual_quote_tokens, launch.quote_mint),
        "virtualTokens": base_units(settings.virtual_base_tokens, config.decimals),
        "firstBuyQuoteAmount": lamports(buy.amount) if buy.enabled and buy.amount else 0,
        "creatorFee": {"wallet": fee.wallet} if fee.enabled and fee.wallet else None,
        "endBehaviors": behaviors(launch, at),
    }
    roles = dict(accounts)
    if buy.enabled and buy.buyer is not None:
        roles["firstBuyer"] = buy.buyer
    return [_build("addConstantProductBondingCurveBucketV2", args, roles, launch)]


_ADDERS = {
    "launchpoolV2": _launchpool,
    "presaleV2": _presale,
    "unlockedV2": _unlocked,
    "UnlockedFunds": _unlocked,
    "fundsRecipient": _unlocked,
    "lockedV2": _locked,
    "raydiumV2": _raydium,
    "RaydiumLP": _raydium,
    "bondingCurveV2": _curve,
}


def first_buy_instructions(
    launch: GenesisPlan, bucket: PlannedBucket, buyer: Pubkey, paid: int, tokens: int
) -> list[Instruction]:
    """The first buy, as a buyer's client sends it: its wrapped SOL account made and
    funded, its token account made, then the swap (for at least `tokens`)."""
    quote = launch.quote_mint
    wrapped = create_idempotent_associated_token_account(buyer, buyer, quote, TOKEN_PROGRAM)
    account = wrapped.accounts[1].pubkey
    swap = build_instruction(
        "swapBondingCurveV2",
        {"swapDirection": t.SwapDirection.Buy, "amount": paid, "minAmountOutScaled": tokens},
        {
            "genesisAccount": launch.genesis,
            "bucket": bucket.address,
            "baseMint": launch.mint,
            "quoteMint": quote,
            "quoteTokenOwner": buyer,
            "baseTokenOwner": buyer,
        },
        payer=buyer,
        signers=("quoteTokenOwner", "baseTokenOwner"),
    )
    return [
        wrapped,
        transfer(TransferParams(from_pubkey=buyer, to_pubkey=account, lamports=paid)),
        sync_native(SyncNativeParams(program_id=TOKEN_PROGRAM, account=account)),
        create_idempotent_associated_token_account(buyer, buyer, launch.mint, TOKEN_PROGRAM),
        swap,
    ]


__all__ = ["create_units", "first_buy_instructions", "streamflow_config"]
