"""The runner: a launch from wherever its journal says it is, to where a run stops.

It reads the state, asks `launchops.states` which step runs from there and who may run
it, and calls that step: itself (`--no-prefect`), or through its Prefect task (the
flows pass `call`). When a submit leaves the launch `expired`, the create-again policy
(`launchops.retries`) waits and the next attempt creates again. Also the validate step,
the dry run and the result summary, which both drivers share.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from launchops.chain.signing import sign_partial
from launchops.config.launchfile import plan_launch
from launchops.config.profiles import Profile
from launchops.errors import (
    BlockhashExpired,
    LaunchFileError,
    LaunchOpsError,
    LeaseHeld,
    StepTimedOut,
    WrongKey,
)
from launchops.journal.records import LaunchRecord
from launchops.pipeline import stopping
from launchops.pipeline.agents import AGENT_STEPS
from launchops.pipeline.claims import CLAIM_STEPS
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.steps import LAUNCH_STEPS, StepFunction
from launchops.pipeline.transfers import TRANSFER_STEPS
from launchops.retries import create_again
from launchops.states import (
    NEEDS_A_PERSON,
    RESUMABLE,
    Driver,
    Kind,
    LaunchState,
    Step,
    done,
    terminal,
    transition,
)

STEP_TABLES: dict[Kind, dict[Step, StepFunction]] = {
    Kind.LAUNCH: LAUNCH_STEPS,
    Kind.FUND: TRANSFER_STEPS,
    Kind.WITHDRAW: TRANSFER_STEPS,
    Kind.CLAIM: CLAIM_STEPS,
    Kind.AGENT: AGENT_STEPS,
}
StepCaller = Callable[[Step, LaunchContext, str], Awaitable[None]]


async def validate(ctx: LaunchContext, path: Path, *, replace: bool = False) -> LaunchRecord:
    """Validate the file and record it in the journal (or find it there): the first step."""
    try:
        plan = plan_launch(ctx.profile, ctx.wallet, path, check_times=True, resolver=ctx.resolver)
    except LaunchFileError as exc:
        # "Not in the past" holds for a new launch; one under way is resumed all the same.
        if not all("in the past" in p.message for p in exc.file_problems) or replace:
            raise
        plan = plan_launch(ctx.profile, ctx.wallet, path, check_times=False, resolver=ctx.resolver)
        known = await ctx.journal.get(plan.key)
        if known is None or (known.state is LaunchState.VALIDATED and known.attempt == 0):
            raise
    known = await ctx.journal.get(plan.key)
    if known is not None:  # another key's launch: said so, not a "changed file"
        refuse_another_key(ctx, known)
    ctx.secrets[plan.key] = plan.secrets  # in memory only: the journal keeps their names
    ctx.progress(plan.key, Step.VALIDATE, f"{path} -> {plan.key}")
    return await ctx.journal.begin(
        plan.key,
        config=plan.wire,
        config_hash=plan.config_hash,
        network=str(plan.config.network),
        source=str(path),
        replace=replace,
    )


async def run_step(step: Step, ctx: LaunchContext, key: str) -> None:
    """Run `step` of the launch, by its kind's step table; nothing when the launch is no
    longer where that step runs from (a step repeated after it finished). Under the lease
    the runner holds, else one taken for this step alone: no step writes without one.
    Within the profile's `step_seconds`: past them it stops where it is (`StepTimedOut`)."""
    async with ctx.holding(key):
        record = ctx.just_read.pop(key, None) or await ctx.journal.get(key)
        assert record is not None, f"launch {key} is not in the journal"
        if transition(record.state, record.kind).step is not step:
            return
        refuse_another_key(ctx, record)
        seconds = ctx.profile.step_seconds
        timer = asyncio.timeout(seconds)
        try:
            async with timer:
                await STEP_TABLES[record.kind][step](ctx, record)
        except TimeoutError:
            if not timer.expired():
                raise
            raise StepTimedOut(
                f"launch {key}: step {step} did not end within {seconds:g} s (step_seconds); "
                "it stopped where it was: run the same command again to continue it"
            ) from None


def refuse_another_key(ctx: LaunchContext, record: LaunchRecord) -> None:
    """A launch is driven only by the key that created it (its file's `publicKey`, as the
    journal keeps it): another profile's key would send bytes the old key signed and
    register the launch under another creator (`WrongKey`, one line, nothing done)."""
    if record.kind is not Kind.LAUNCH or record.attempt == 0:
        return  # nothing created yet: the file is read again with the key that runs it
    creator = record.launch.public_key
    if creator != ctx.wallet:
        raise WrongKey(
            f"launch {record.key} was created by the key {creator}, and this profile's key "
            f"is {ctx.wallet}: nothing sent or registered with another key. Run it with the "
            "key that created it (the profile's keypair, or LAUNCHOPS_KEYPAIR)"
        )


async def run_launch(
    ctx: LaunchContext, key: str, call: StepCaller = run_step, *, by: Driver = Driver.RUN
) -> LaunchRecord:
    """Run the launch to where a run stops (registered, or waiting for a person or the
    registration retry), or, once a stop is asked (`launchops.pipeline.stopping`), to the
    end of the step in flight (cut after the stop's grace): the journal holds where it
    stands, for a re-run or `resume`. `by` may also move it out of a state only it
    drives: the registration retry passes `Driver.REGISTRATION_RETRY`."""
    record = await ctx.journal.get(key)
    if record is None:
        raise LaunchOpsError(f"no launch {key!r} in the journal")
    again = by is Driver.RUN and asked_again(ctx, record)
    if (
        record.state in terminal(record.kind)
        and transition(record.state, record.kind).driver is not by
        and not again
    ):
        return record  # finished, or waiting for a person: reported, not re-run
    if not await ctx.acquire(key):
        owner = (await ctx.journal.get(key) or record).lease_owner
        raise LeaseHeld(
            f"launch {key} is being worked by {owner}; try again when its lease expires"
        )
    if again or (record.state is LaunchState.VALIDATED and record.attempt):
        # Started over by this command (failed, or a replaced config): the profile's
        # attempts count from here, so one command makes at most that many creates.
        ctx.attempts_from[key] = record.attempt
    first = {Driver.CREATE_AGAIN, by, *([Driver.RERUN] if again else [])}
    try:
        async with stopping.within_grace():  # a stop: the step in flight ends, or is cut
            async for attempt in create_again(ctx.profile.create_attempts):
                with attempt:
                    record = await _steps(ctx, key, call, first=first)
                first = {Driver.CREATE_AGAIN, by}
    except stopping.StepCut:
        record = await ctx.journal.get(key) or record  # where the cut step left it
    finally:
        await ctx.release(key)  # a lost lease: nothing to give back, the renewal stops
    if stopping.asked() is not None:
        stopping.note_left(key, record.state)
    return record


def asked_again(ctx: LaunchContext, record: LaunchRecord) -> bool:
    """A failed launch that this command may run again: it failed before the command
    began and was not already run again by it (a run that ends failed stops there), and
    nothing of any attempt landed: its sends, if any, were refused by the node, and a
    refused transaction is never forwarded, so it cannot land later."""
    if transition(record.state, record.kind).driver is not Driver.RERUN:
        return False
    if record.key in ctx.attempts_from or record.updated_at >= ctx.opened_at:
        return False
    return not any(s.landing for a in record.attempts for s in a.sends or ())


async def _steps(
    ctx: LaunchContext, key: str, call: StepCaller, first: set[Driver]
) -> LaunchRecord:
    """Step after step while any run may continue; the first step may also be one that
    only `first` drives (a create again after the policy's wait, a re-registration)."""
    drivers = {Driver.RUN, *first}
    while True:
        record = await ctx.journal.get(key)
        assert record is not None
        move = transition(record.state, record.kind)
        if move.driver not in drivers or move.step is None:
            if move.driver is Driver.CREATE_AGAIN:
                raise BlockhashExpired(f"launch {key}: nothing landed, its blockhash expired")
            return record
        if stopping.asked() is not None:  # a stop: no further step; the journal holds here
            return record
        ctx.just_read[key] = record
        await call(move.step, ctx, key)
        await ctx.renew(key)
        drivers = {Driver.RUN}


async def dry_run(ctx: LaunchContext, path: Path) -> dict[str, Any]:
    """Validate, create and sign, then simulate each transaction; nothing is sent or kept."""
    plan = plan_launch(ctx.profile, ctx.wallet, path, check_times=True, resolver=ctx.resolver)
    created = await ctx.client.create_launch(ctx.wallet, plan.config, agent=plan.agent)
    results = []
    for index, raw in enumerate(created.transactions):
        signed = sign_partial(raw, ctx.keypair, *plan.secrets.signers)
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
        "landing": ctx.profile.landing.describe(len(created.transactions)),
        "note": "later transactions build on earlier ones, which a dry run does not send, so "
        "their simulation may fail for that reason alone",
    }


def summary(profile: Profile, record: LaunchRecord) -> dict[str, Any]:
    """The result a person or a script wants: page, mint, accounts, links, signatures."""
    registered = record.registered
    signatures = record.signatures

    def link(kind: Any, value: str | None) -> str | None:
        return profile.explorer_link(kind, value) if value else None

    return {
        "key": record.key,
        "state": str(record.state),
        "finished": done(record.state, record.kind),
        "resumable": record.state in RESUMABLE,
        "needsAPerson": record.state in NEEDS_A_PERSON,
        "network": record.network,
        "launchPage": registered.link if registered else None,
        "launchId": registered.launch_id if registered else None,
        "tokenId": registered.token_id if registered else None,
        "mint": record.mint,
        "genesisAccount": record.genesis,
        "attempts": record.attempt,
        "signatures": signatures,
        "explorer": {
            "mint": link("address", record.mint),
            "genesisAccount": link("address", record.genesis),
            "transactions": [link("tx", s) for s in signatures] if profile.explorer else [],
        },
        "error": record.last_error,
        "errorDetails": record.error_details,
        "lamportsSpent": record.lamports_spent,
        "spent": [{"attempt": a.number, **a.spent.to_json()} for a in record.attempts if a.spent],
        "snipedBy": list(record.sniped_by),
    }
