"""Driving a launch without Prefect (`--no-prefect`): the same steps, in this process.

Also the validate step, the dry run and the result summary, which both drivers share.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from launchops.api.errors import LaunchFileError, LaunchOpsError
from launchops.chain.signing import sign_partial
from launchops.config.launchfile import LaunchPlan, load_launch_file
from launchops.config.profiles import Profile
from launchops.journal.store import LaunchRecord
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.steps import STEPS, BlockhashExpired, next_step
from launchops.retries import create_again


class LeaseHeld(LaunchOpsError):
    """Another worker holds this launch's lease."""


def plan_launch(profile: Profile, wallet: Any, path: Path, *, check_times: bool) -> LaunchPlan:
    return load_launch_file(
        path,
        wallet=wallet,
        network=profile.network,
        pinned_network=not profile.embedded_sandbox,  # the sandbox serves both networks
        now=datetime.now(UTC) if check_times else None,
    )


async def validate(ctx: LaunchContext, path: Path, *, replace: bool = False) -> LaunchRecord:
    """Validate the file and record it in the journal (or find it there): the first step."""
    try:
        plan = plan_launch(ctx.profile, ctx.wallet, path, check_times=True)
    except LaunchFileError as exc:
        # "Not in the past" holds for a new launch; one under way is resumed all the same.
        if not all("in the past" in p.message for p in exc.file_problems) or replace:
            raise
        plan = plan_launch(ctx.profile, ctx.wallet, path, check_times=False)
        known = await ctx.journal.get(plan.key)
        if known is None or (known.state == "validated" and known.attempt == 0):
            raise
    ctx.progress(plan.key, "validate", f"{path} -> {plan.key}")
    return await ctx.journal.begin(
        plan.key,
        config=plan.wire,
        config_hash=plan.config_hash,
        network=str(plan.config.network),
        source=str(path),
        replace=replace,
    )


StepCaller = Callable[[str, LaunchContext, str], Awaitable[None]]


async def call_step(step: str, ctx: LaunchContext, key: str) -> None:
    """The plain driver: call the step function itself."""
    await STEPS[step](ctx, key)


async def run_launch(ctx: LaunchContext, key: str, call: StepCaller = call_step) -> LaunchRecord:
    """Run the launch from wherever its journal says it is, to a terminal state.

    `call` runs one step: `call_step` here; the Prefect flow passes one that runs the
    step's task. The state machine (`next_step`) and the retry policy stay in one place.
    """
    record = await ctx.journal.get(key)
    if record is None:
        raise LaunchOpsError(f"no launch {key!r} in the journal")
    if next_step(record.state, record.kind) is None:
        return record  # finished, or waiting for a person: reported, not re-run
    if not await ctx.acquire(key):
        owner = (await ctx.journal.get(key) or record).lease_owner
        raise LeaseHeld(
            f"launch {key} is being worked by {owner}; try again when its lease expires"
        )
    try:
        async for attempt in create_again(ctx.profile):
            with attempt:
                step: str | None = None
                while True:
                    current = await ctx.journal.get(key)
                    assert current is not None
                    record = current
                    if step == "submit" and record.state == "expired":
                        raise BlockhashExpired(key)  # the policy waits, then creates again
                    step = next_step(record.state, record.kind)
                    if step is None:
                        break
                    ctx.just_read[key] = record
                    await call(step, ctx, key)
                    await ctx.renew(key)
    finally:
        if record.state != "registered":  # nobody needs a registered launch's lease
            await ctx.release(key)
    return record


async def dry_run(ctx: LaunchContext, path: Path) -> dict[str, Any]:
    """Validate, create and sign, then simulate each transaction; nothing is sent or kept."""
    plan = plan_launch(ctx.profile, ctx.wallet, path, check_times=True)
    created = await ctx.client.create_launch(ctx.wallet, plan.config)
    results = []
    for index, raw in enumerate(created.transactions):
        signed = sign_partial(raw, ctx.keypair)
        err, logs = await ctx.rpc.simulate(bytes(signed))
        results.append(
            {
                "transaction": index + 1,
                "signature": str(signed.signatures[0]),
                "err": err,
                "logs": logs[-5:],
            }
        )
    return {
        "key": plan.key,
        "mint": str(created.mint_address),
        "genesisAccount": str(created.genesis_account),
        "simulations": results,
        "note": "later transactions build on earlier ones, which a dry run does not send, so "
        "their simulation may fail for that reason alone",
    }


def summary(profile: Profile, record: LaunchRecord) -> dict[str, Any]:
    """The result a person or a script wants: page, mint, accounts, links, signatures."""
    result = record.result or {}
    signatures = record.current.signatures if record.current else []
    return {
        "key": record.key,
        "state": record.state,
        "network": record.network,
        "launchPage": result.get("launch", {}).get("link"),
        "launchId": result.get("launch", {}).get("id"),
        "tokenId": result.get("token", {}).get("id"),
        "mint": record.mint,
        "genesisAccount": record.genesis,
        "attempts": record.attempt,
        "signatures": signatures,
        "explorer": {
            "mint": profile.explorer_link("address", record.mint) if record.mint else None,
            "genesisAccount": profile.explorer_link("address", record.genesis)
            if record.genesis
            else None,
            "transactions": [profile.explorer_link("tx", s) for s in signatures or []]
            if profile.explorer
            else [],
        },
        "error": record.last_error,
        "errorDetails": record.error_details,
    }
