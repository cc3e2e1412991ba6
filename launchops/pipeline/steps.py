"""The steps of a launch. Each does its one side effect and records the outcome and the
next state (as `launchops.states` allows) in one journal write before anything else.

    create -> sign -> submit -> confirm -> register

Submit and confirm are shared with funds and withdraws (`transfers.TRANSFER_STEPS`);
the submission engine is `submission.py`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from solders.keypair import Keypair
from solders.transaction import VersionedTransaction

from launchops.api.models import RegisterLaunchResponse
from launchops.chain.checks import Tables, lookup_tables
from launchops.chain.expiry import at_most_possible, read_deadline, seen_valid
from launchops.chain.fate import Fate, Verdict, fate
from launchops.chain.landing import Landing
from launchops.chain.signing import sign_partial
from launchops.errors import APIStatusError, RpcUnavailable, SigningError, TransactionRefused
from launchops.journal.records import Attempt, Created, LaunchRecord, Registered, Send
from launchops.pipeline.bundling import submission_for
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.secrets import secrets_of
from launchops.pipeline.submission import made_in
from launchops.retries import INDEXER_WAIT, not_indexed_yet
from launchops.states import Kind, LaunchState, Step

S = LaunchState
StepFunction = Callable[[LaunchContext, LaunchRecord], Awaitable[None]]
Check = Callable[[LaunchContext, LaunchRecord, bytes], None]


# ── begin and create ────────────────────────────────────────────────────────


def config_digest(config: Mapping[str, Any]) -> str:
    """The hash a journal entry keeps of its configuration (a changed file shows)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


async def begin_order(
    ctx: LaunchContext,
    key: str,
    kind: Kind,
    config: dict[str, Any],
    *,
    network: str,
    source: str,
    note: str,
) -> LaunchRecord:
    """Record an order (an agent file, a claim, a transfer) in the journal (state
    `validated`), or find it there; `note` is its progress line."""
    ctx.progress(key, Step.VALIDATE, note)
    digest = config_digest(config)
    return await ctx.journal.begin(
        key, kind=kind, config=config, config_hash=digest, network=network, source=source
    )


async def record_built(
    ctx: LaunchContext,
    record: LaunchRecord,
    number: int,
    transactions: Sequence[bytes],
    built: Any,
    mint: Any = None,
) -> None:
    """Keep the transactions the service built for attempt `number`, with the blockhash it
    answered (`built.blockhash`), as its create; `mint`: the account that proves it landed."""
    said = built.blockhash.last_valid_block_height
    created = Created(
        transactions=tuple(transactions),
        blockhash=built.blockhash.blockhash,
        last_valid_block_height=at_most_possible(said, ctx.rpc.highest_slot),
        mint=mint,
    )
    await ctx.journal.record_created(record.key, number, created)


async def next_attempt(ctx: LaunchContext, record: LaunchRecord) -> int | None:
    """The number of the create about to be made, or None (recorded `failed`) when the
    profile's attempts are spent."""
    made = record.attempt - ctx.attempts_from.get(record.key, 0)  # by this command
    if made < ctx.profile.create_attempts:
        number = record.attempt + 1
        again = (
            f" (asked again after {record.state})" if record.state in (S.FAILED, S.REFUSED) else ""
        )
        ctx.progress(record.key, Step.CREATE, f"attempt {number}{again}")
        return number
    await ctx.journal.set_state(
        record.key,
        S.FAILED,
        step=Step.CREATE,
        message=f"gave up after {made} creates whose blockhash expired",
        error=f"blockhash expired on {made} attempts; nothing landed",
    )
    return None


async def refused(ctx: LaunchContext, record: LaunchRecord, exc: APIStatusError) -> None:
    """The service refused the launch itself: nothing was signed, nothing can land."""
    if exc.transient:
        raise exc  # still where it was: a re-run asks again, nothing was signed
    await ctx.journal.set_state(
        record.key,
        S.FAILED,
        step=Step.CREATE,
        message=str(exc),
        error=str(exc),
        details=exc.details,
    )


async def previous_dead(ctx: LaunchContext, record: LaunchRecord) -> bool:
    """Before any create again (after an expiry, a re-run of `failed`, a `--replace`):
    whether the last attempt is provably dead, asked now from answers at least as recent
    as its expiry (`launchops.chain.fate`); nothing of it ever taken by a node is dead at
    once. When something of it is on chain, or may still land, no new create is made: the
    launch goes back to `submitting` that attempt, or, when `--replace` gave it another
    configuration meanwhile, to `needs_attention` with what was found."""
    attempt = record.current
    if attempt is None or attempt.sends is None or attempt.signed is None:
        return True
    sent = [s for s in attempt.sends if s.sent]
    if not sent:
        return True  # no node ever took any of it (refused, or never sent): nothing can land
    replaced = record.state is S.VALIDATED  # its attempts are of the configuration replaced
    verdict = await _settled(ctx, record, attempt, sent, wait_alive=replaced)
    if verdict.fate.final:
        return True
    if replaced:
        found = "was found on chain" if verdict.fate is Fate.LANDED else "may still land"
        error = (
            f"attempt {attempt.number} of the configuration --replace took over {found} "
            f"(mint {attempt.created.mint}): nothing was created again; its launch cannot "
            "go on with a new configuration"
        )
        await ctx.journal.set_state(
            record.key, S.NEEDS_ATTENTION, step=Step.CREATE, message=error, error=error
        )
        return False
    await ctx.journal.record_sends(
        record.key,
        attempt.number,
        attempt.sends,
        state=S.SUBMITTING,
        reopen=True,
        note=f"attempt {attempt.number} {_why_alive(verdict.fate)}: watching it again "
        "instead of creating again",
    )
    return False


def _why_alive(verdict: Fate) -> str:
    if verdict is Fate.LANDED:
        return "is on chain (an account only it makes was found)"
    if verdict is Fate.ALIVE:
        return "was found landing, or its blockhash is still valid"
    return "could not be proved dead"


async def _settled(
    ctx: LaunchContext,
    record: LaunchRecord,
    attempt: Attempt,
    sent: list[Send],
    *,
    wait_alive: bool,
) -> Verdict:
    """`fate` of the attempt, asked again while the answers are too old to tell (and, with
    `wait_alive`, while its blockhash lives), within the profile's stale_answers_seconds."""
    signatures = [sig for s in sent for sig in (s.signature, *s.replaced)]
    created = attempt.created  # its expiry as the chain bounds it, the service's at most
    said = await read_deadline(
        ctx.rpc, created.blockhash, created.last_valid_block_height, created.seen_valid_at
    )
    deadline = max([said] + [s.last_valid_block_height for s in sent if s.last_valid_block_height])
    signed = attempt.signed or ()
    made = made_in(attempt, signed, 0) if signed else []
    started, expired_at = time.monotonic(), None
    while True:
        verdict = await fate(
            ctx.rpc,
            signatures,
            deadline,
            made,
            expired_at=expired_at,
            commitment=ctx.profile.commitment,
        )
        expired_at = verdict.expired_at
        waiting = verdict.fate is Fate.UNKNOWN or (
            wait_alive and verdict.fate is Fate.ALIVE and expired_at is None
        )
        if not waiting:
            return verdict
        if time.monotonic() - started > ctx.profile.stale_answers_seconds:
            raise RpcUnavailable(
                f"launch {record.key}: the RPC's answers could not tell whether attempt "
                f"{attempt.number} landed for {ctx.profile.stale_answers_seconds:g} s (too "
                "old, or without history); nothing is created again until they can"
            )
        waited = f"telling whether attempt {attempt.number} landed before creating again"
        ctx.progress(record.key, Step.CREATE, waited)
        await asyncio.sleep(ctx.profile.rebroadcast_seconds)
        await ctx.renew(record.key)


async def create(ctx: LaunchContext, record: LaunchRecord) -> None:
    """POST /launches/create, and keep what it answered (attempt N); a create again only
    once the last attempt is provably dead."""
    if not await previous_dead(ctx, record):
        return
    number = await next_attempt(ctx, record)
    if number is None:
        return
    await ctx.check_lease(record.key)
    try:
        created = await ctx.client.create_launch(ctx.wallet, record.launch, agent=record.agent)
    except APIStatusError as exc:
        await refused(ctx, record, exc)
        return
    answer = Created(
        transactions=tuple(created.transactions),
        blockhash=created.blockhash.blockhash,
        last_valid_block_height=at_most_possible(
            created.blockhash.last_valid_block_height, ctx.rpc.highest_slot
        ),
        mint=created.mint_address,
        genesis=created.genesis_account,
    )
    await ctx.journal.record_created(record.key, number, answer)


# ── sign ────────────────────────────────────────────────────────────────────


async def sign_checked(
    ctx: LaunchContext, record: LaunchRecord, check: Check | None, others: tuple[Keypair, ...] = ()
) -> None:
    """Add the creator's signature to each transaction (after `check`, if given), and each
    of `others` where one is needed (a first buyer's), and keep the signed bytes and
    signatures before anything is sent."""
    attempt = record.current
    assert attempt is not None
    transactions = attempt.created.transactions
    ctx.progress(record.key, Step.SIGN, f"{len(transactions)} transactions")
    try:
        signed: list[VersionedTransaction] = []
        for raw in transactions:
            if check is not None:
                check(ctx, record, raw)
            signed.append(sign_partial(raw, ctx.keypair, *others))
    except (SigningError, ValueError) as exc:
        # Refused: the answer asks for what was not asked; a state of its own, for a person.
        state = S.REFUSED if isinstance(exc, TransactionRefused) else S.FAILED
        await ctx.journal.set_state(
            record.key, state, step=Step.SIGN, message=str(exc), error=str(exc)
        )
        return
    sends = [Send(t.signatures[0]) for t in signed]
    # Before the first send: a node's view that calls the blockhash valid, so the chain
    # can later bound the expiry the service answered (launchops.chain.expiry).
    created = attempt.created
    if created.seen_valid_at is None:
        seen = await seen_valid(ctx.rpc, created.blockhash)
        created = replace(created, seen_valid_at=seen) if seen is not None else created
    raw = [bytes(t) for t in signed]
    await ctx.journal.record_signed(record.key, attempt.number, raw, sends, created)


async def sign_through_tables(
    ctx: LaunchContext,
    record: LaunchRecord,
    checker: Callable[[Tables], Check],
    others: tuple[Keypair, ...] = (),
) -> None:
    """Resolve the lookup tables the transactions load accounts from (over RPC), check
    what they move through them (`checker(tables)`), and sign them (and each of `others`
    where needed)."""
    attempt = record.current
    assert attempt is not None
    keys: Sequence[Any] = [
        table
        for raw in attempt.created.transactions
        for table in lookup_tables(VersionedTransaction.from_bytes(raw))
    ]
    await sign_checked(ctx, record, checker(await ctx.rpc.lookup_tables(list(keys))), others)


async def sign(ctx: LaunchContext, record: LaunchRecord) -> None:
    """Every transaction read against the file (`launchops.chain.reader`), then signed by
    the creator, and by a first buyer (another wallet) where it is in one."""
    from launchops.pipeline.reading import launch_checker

    others = (await secrets_of(ctx, record)).signers
    await sign_through_tables(ctx, record, launch_checker, others)


# ── submit and confirm ──────────────────────────────────────────────────────


async def submit(ctx: LaunchContext, record: LaunchRecord) -> None:
    """Send in order, rebroadcasting the same bytes, until each has landed (as one bundle
    with a tip, in a profile's bundle mode)."""
    submission = await submission_for(ctx, record)
    if submission is not None:
        await submission.run()


async def confirm(ctx: LaunchContext, record: LaunchRecord) -> None:
    """Every signature at the profile's commitment (pushed, else polled in batches)."""
    if await at_commitment(ctx, record):
        total = len(record.current.sends or ()) if record.current else 0
        await ctx.journal.set_state(
            record.key,
            S.CONFIRMED,
            step=Step.CONFIRM,
            message=f"all {total} at {ctx.profile.commitment}",
        )


async def at_commitment(ctx: LaunchContext, record: LaunchRecord) -> bool:
    """Wait for every signature at the profile's commitment: True; False (and the launch
    back to `submitting`) when one vanished, rolled back with a fork. A signature a node
    reads as unknown (one without history) counts when an account only its transaction
    makes is on chain at that commitment."""
    attempt = record.current
    assert attempt is not None and attempt.sends is not None
    commitment = ctx.profile.commitment
    ctx.progress(record.key, Step.CONFIRM, f"{len(attempt.sends)} signatures to {commitment}")
    # What submit saw may already be enough (commitment `confirmed`): no poll at all.
    landings: list[Landing | None] = [s.landing for s in attempt.sends]
    while not (landings and all(x and x.reached(commitment) for x in landings)):
        landings = [seen.landing for seen in await ctx.watcher.next_all(attempt.signatures)]
        for index, landing in enumerate(landings):
            if landing is None:
                landings[index] = await _proved(ctx, attempt, index)
        if any(landing is None for landing in landings):  # rolled back with a fork
            await ctx.journal.set_state(
                record.key, S.SUBMITTING, step=Step.CONFIRM, message="a transaction vanished"
            )
            return False
        await ctx.renew(record.key)
    return True


async def _proved(ctx: LaunchContext, attempt: Attempt, index: int) -> Landing | None:
    """Where transaction `index` landed, by the accounts only it makes, at the profile's
    commitment; None when it makes none or they are not there."""
    made = made_in(attempt, attempt.signed or (), index)
    if not made:
        return None
    commitment = ctx.profile.commitment
    found, slot = await ctx.rpc.existing(made, commitment=commitment)
    return Landing(slot or 0, commitment) if any(found) else None


# ── register ────────────────────────────────────────────────────────────────


async def register(ctx: LaunchContext, record: LaunchRecord) -> None:
    """POST /launches/register (idempotent). A refusal leaves it `register_failed`; a 400
    "not found" is asked again first, while the service indexes the launch."""
    assert record.genesis is not None
    ctx.progress(record.key, Step.REGISTER, f"genesis account {record.genesis}")
    try:
        answer = await _once_indexed(ctx, record)
    except APIStatusError as exc:
        if exc.transient:
            raise  # still `confirmed`: a re-run or the registration retry registers it
        waited = ctx.profile.register_index_seconds
        error = str(exc) + (f" (still so after {waited:g} s)" if not_indexed_yet(exc) else "")
        await ctx.journal.set_state(
            record.key,
            S.REGISTER_FAILED,
            step=Step.REGISTER,
            message=error,
            error=error,
            details=exc.details,
        )
        return
    await ctx.journal.record_registered(record.key, Registered.of(answer))


async def _once_indexed(ctx: LaunchContext, record: LaunchRecord) -> RegisterLaunchResponse:
    """Register, asked again while the service has not indexed the launch (INDEXER_WAIT)."""
    assert record.genesis is not None
    async for attempt in INDEXER_WAIT.retrying(ctx.profile.register_index_seconds):
        with attempt:
            if attempt.retry_state.attempt_number > 1:
                await ctx.renew(record.key)  # the wait may outlast a third of the lease
                ctx.progress(record.key, Step.REGISTER, "not indexed yet: asking again")
            await ctx.check_lease(record.key)
            return await ctx.client.register_launch(
                record.genesis,
                record.launch,
                agent=record.agent,
                creator_wallet=ctx.wallet,
                twitter_verification_token=(await secrets_of(ctx, record)).twitter_token,
            )
    raise AssertionError("unreachable: tenacity reraises the last error")


LAUNCH_STEPS: dict[Step, StepFunction] = {
    Step.CREATE: create,
    Step.SIGN: sign,
    Step.SUBMIT: submit,
    Step.CONFIRM: confirm,
    Step.REGISTER: register,
}

__all__ = ["LAUNCH_STEPS", "StepFunction", "confirm", "create", "register", "sign", "submit"]
