"""The steps of a launch. Each reads the journal, does its one side effect, and records
the outcome and the next state in one journal write before anything else happens.

    validated -> created -> signed -> submitting -> submitted -> confirmed -> registered
                    ^                      |
                    +---- expired <--------+   (nothing landed, blockhash provably dead)
    also: register_failed (a 400 from register), needs_attention (partly landed and not
    repairable), failed (nothing landed; the service or the node refused the launch)

`next_step(state)` is the whole state machine; the plain runner and the Prefect flow
both loop over it, so no step is written twice.
"""

from __future__ import annotations

import base64
import time
from decimal import Decimal
from typing import Any

from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.api.errors import APIStatusError
from launchops.api.fields import lamports
from launchops.api.models import LaunchConfig
from launchops.chain.checks import check_fund, check_withdraw
from launchops.chain.rpc import ChainError, Landing, TransactionRejected
from launchops.chain.signing import SigningError, only_ours, resign, sign_partial
from launchops.journal.store import Attempt, LaunchRecord
from launchops.pipeline.context import LaunchContext

STEP_OF_STATE = {
    "validated": "create",
    "expired": "create",
    "created": "sign",
    "signed": "submit",
    "submitting": "submit",
    "submitted": "confirm",
    "confirmed": "register",
    "register_failed": None,  # the registration retry picks these up
    "registered": None,
    "needs_attention": None,
    "failed": None,
}
TERMINAL = frozenset({"registered", "register_failed", "needs_attention", "failed"})
MAX_RESIGNS = 3


class BlockhashExpired(Exception):
    """Nothing of an attempt landed and its blockhash is provably dead: create again.

    Raised by the driver, not by the submit step: the step did its work (it found out and
    journaled it), so its Prefect task run completes rather than showing as failed."""


def next_step(state: str, kind: str = "launch") -> str | None:
    """The next step of a launch; a transfer (fund, withdraw) ends once confirmed."""
    if kind != "launch" and state == "confirmed":
        return None
    return STEP_OF_STATE.get(state)


async def _record(ctx: LaunchContext, key: str) -> LaunchRecord:
    fresh = ctx.just_read.pop(key, None)  # the driver read it a moment ago
    if fresh is not None:
        return fresh
    record = await ctx.journal.get(key)
    assert record is not None, f"launch {key} is not in the journal"
    return record


def _config(record: LaunchRecord) -> LaunchConfig:
    return LaunchConfig.model_validate(record.config)


# ── create ──────────────────────────────────────────────────────────────────


async def create(ctx: LaunchContext, key: str) -> None:
    """POST /launches/create, and keep what it answered (attempt N)."""
    record = await _record(ctx, key)
    if record.state not in ("validated", "expired"):
        return
    number = record.attempt + 1
    if number > ctx.profile.create_attempts:
        await ctx.journal.set_state(
            key,
            "failed",
            step="create",
            message=f"gave up after {record.attempt} creates whose blockhash expired",
            error=f"blockhash expired on {record.attempt} attempts; nothing landed",
        )
        return
    ctx.progress(key, "create", f"attempt {number}")
    try:
        if record.kind != "launch":
            await _build_transfer(ctx, record, number)
            return
        created = await ctx.client.create_launch(ctx.wallet, _config(record))
    except APIStatusError as exc:
        if exc.transient:
            raise  # still `validated`: a re-run creates again, nothing was signed
        # The service refused the launch itself: nothing was signed, nothing can land.
        await ctx.journal.set_state(
            key, "failed", step="create", message=str(exc), error=str(exc), details=exc.details
        )
        return
    await ctx.journal.record_created(
        key,
        number,
        {
            "transactions": [base64.b64encode(t).decode() for t in created.transactions],
            "blockhash": str(created.blockhash.blockhash),
            "lastValidBlockHeight": created.blockhash.last_valid_block_height,
            "mintAddress": str(created.mint_address),
            "genesisAccount": str(created.genesis_account),
        },
    )


async def _build_transfer(ctx: LaunchContext, record: LaunchRecord, number: int) -> None:
    """A fund or withdraw: the service builds the one transaction (again, after expiry)."""
    wanted = record.config
    common = {
        "sender": ctx.wallet,
        "amount": Decimal(wanted["amount"]),
        "network": wanted["network"],
    }
    if record.kind == "fund":
        built = await ctx.client.build_fund_tx(wanted["agent"], memo=wanted["memo"], **common)
    else:
        built = await ctx.client.build_withdraw_tx(wanted["agent"], **common)
    await ctx.journal.record_created(
        record.key,
        number,
        {
            "transactions": [base64.b64encode(built.tx).decode()],
            "blockhash": str(built.blockhash.blockhash),
            "lastValidBlockHeight": built.blockhash.last_valid_block_height,
            "mintAddress": None,
            "genesisAccount": None,
        },
    )


def _check_transfer(record: LaunchRecord, raw: bytes, sender: Any) -> None:
    """Refuse, unsigned, a fund or withdraw that is not exactly what was asked."""
    wanted = record.config
    tx = VersionedTransaction.from_bytes(raw)
    agent = Pubkey.from_string(wanted["agent"])
    amount = lamports(Decimal(wanted["amount"]))
    if record.kind == "fund":
        check_fund(tx, agent=agent, sender=sender, lamports=amount, memo=wanted["memo"])
    else:
        check_withdraw(tx, agent=agent, sender=sender, lamports=amount)


# ── sign ────────────────────────────────────────────────────────────────────


async def sign(ctx: LaunchContext, key: str) -> None:
    """Add the creator's signature to each transaction; persist them before any send."""
    record = await _record(ctx, key)
    if record.state != "created" or record.current is None:
        return
    ctx.progress(key, "sign", f"{len(record.current.transactions)} transactions")
    try:
        if record.kind != "launch":
            for raw in record.current.transactions:
                _check_transfer(record, raw, ctx.wallet)
        signed = [sign_partial(raw, ctx.keypair) for raw in record.current.transactions]
    except (SigningError, ValueError) as exc:
        await ctx.journal.set_state(key, "failed", step="sign", message=str(exc), error=str(exc))
        return
    await ctx.journal.record_signed(
        key,
        record.current.number,
        [bytes(t) for t in signed],
        [str(t.signatures[0]) for t in signed],
    )


# ── submit ──────────────────────────────────────────────────────────────────


async def submit(ctx: LaunchContext, key: str) -> None:
    """Send in order, rebroadcasting the same bytes, until each has landed.

    Leaves the launch `expired` when nothing landed and the blockhash is dead (the driver
    raises `BlockhashExpired` for its retry policy, which creates again); re-signs a tail
    that only the creator signs; otherwise a partly landed launch goes to `needs_attention`.
    """
    record = await _record(ctx, key)
    if record.state not in ("signed", "submitting") or record.current is None:
        return
    attempt = record.current
    assert attempt.signed is not None and attempt.signatures is not None
    signed = list(attempt.signed)
    signatures = list(attempt.signatures)
    sends = [dict(s) for s in attempt.sends or [{"signature": s, "sent": 0} for s in signatures]]
    for index in range(len(signed)):
        deadline = sends[index].get("lastValidBlockHeight", attempt.last_valid_block_height)
        try:
            landing = await _land(ctx, key, attempt, index, signed, sends, deadline)
        except TransactionRejected as exc:  # the node refused it (simulation, signature)
            await _stop(
                ctx, key, attempt, index, sends, f"the node refused transaction {index + 1}: {exc}"
            )
            return
        if landing is not None and landing.err is None:
            sends[index].update(slot=landing.slot, level=landing.level)
            continue
        if landing is not None:  # landed, and failed on chain
            await _stop(
                ctx,
                key,
                attempt,
                index,
                sends,
                f"transaction {index + 1} failed on chain: {landing.err}",
            )
            return
        # Expired: its blockhash is past and its signature is nowhere.
        if index == 0:
            await ctx.journal.record_outcome(
                key,
                attempt.number,
                "expired",
                state="expired",
                error="blockhash expired before anything landed",
            )
            ctx.progress(key, "submit", "blockhash expired, nothing landed: creating again")
            return
        tail = signed[index:]
        resigns = sum(1 for s in sends if s.get("replaced"))
        if not all(only_ours(raw, ctx.wallet) for raw in tail) or resigns >= MAX_RESIGNS:
            why = (
                "the rest need the service's signatures"
                if resigns < MAX_RESIGNS
                else "re-signed too often"
            )
            await _stop(
                ctx, key, attempt, index, sends, f"transactions {index + 1}.. expired; {why}"
            )
            return
        blockhash, last_valid = await ctx.rpc.latest_blockhash()
        for offset, raw in enumerate(tail):
            position = index + offset
            fresh = resign(raw, ctx.keypair, blockhash)
            replaced = [*sends[position].get("replaced", []), signatures[position]]
            signed[position] = bytes(fresh)
            signatures[position] = str(fresh.signatures[0])
            sends[position] = {
                "signature": signatures[position],
                "sent": 0,
                "replaced": replaced,
                "lastValidBlockHeight": last_valid,
            }
        await ctx.journal.record_sends(
            key,
            attempt.number,
            sends,
            state="submitting",
            signed=signed,
            signatures=signatures,
            note=f"transactions {index + 1}..{len(signed)} expired after {index} landed: re-signed "
            f"with a fresh blockhash",
        )
        ctx.progress(key, "submit", f"re-signed {len(tail)} expired transactions")
        return await submit(ctx, key)
    await ctx.journal.record_sends(key, attempt.number, sends, state="submitted", note="all landed")


async def _land(
    ctx: LaunchContext,
    key: str,
    attempt: Attempt,
    index: int,
    signed: list[bytes],
    sends: list[dict[str, Any]],
    last_valid: int,
) -> Landing | None:
    """Send transaction `index` (again) until it lands at `confirmed`, or expires (None)."""
    signature = Signature.from_string(sends[index]["signature"])
    if sends[index]["sent"]:  # sent before (a resumed run): it may have landed meanwhile
        [landing] = await ctx.rpc.statuses([signature])
        if landing is not None and (landing.err or landing.reached("confirmed")):
            return landing
    await ctx.watcher.expect(signature)  # subscribed before it is sent: no landing missed
    try:
        return await _send_until_landed(
            ctx, key, attempt, signed, sends, index, signature, last_valid
        )
    finally:
        ctx.watcher.forget(signature)


async def _send_until_landed(
    ctx: LaunchContext,
    key: str,
    attempt: Attempt,
    signed: list[bytes],
    sends: list[dict[str, Any]],
    index: int,
    signature: Signature,
    last_valid: int,
) -> Landing | None:
    total = len(signed)
    if not sends[index]["sent"]:
        sends[index]["sent"] = 1
        if not any(s["sent"] for s in sends[:index]):
            # Recorded before anything is sent (what --replace checks). Later marks ride
            # with the next write; a resumed run that sends a landed transaction again
            # costs nothing: the same signed bytes land at most once.
            await ctx.journal.record_sends(key, attempt.number, sends, state="submitting")
    ctx.progress(key, "submit", f"transaction {index + 1}/{total}")
    skip = ctx.profile.skip_preflight
    last_send = 0.0
    first_send = time.monotonic()
    while True:
        now = time.monotonic()
        if now - last_send >= ctx.profile.rebroadcast_seconds:
            try:
                await ctx.rpc.send(signed[index], skip_preflight=skip)
            except TransactionRejected as exc:
                if not (exc.blockhash_not_found or exc.already_processed):
                    raise
            skip = True  # rebroadcasts: the same bytes, no second simulation
            last_send = now
            await ctx.renew(key)
        # Whether it expired matters only once it is late: ask the block height then.
        late = time.monotonic() - first_send > ctx.profile.rebroadcast_seconds
        seen = await ctx.watcher.next(signature, height=late)
        landing = seen.landing
        if landing is not None and (landing.err or landing.reached("confirmed")):
            return landing
        if landing is None and seen.block_height is not None and seen.block_height > last_valid:
            [landing] = await ctx.rpc.statuses([signature])  # provably dead, or not
            if landing is None:
                return None


async def _stop(
    ctx: LaunchContext,
    key: str,
    attempt: Attempt,
    index: int,
    sends: list[dict[str, Any]],
    why: str,
) -> None:
    landed = [s["signature"] for s in sends[:index]]
    missing = [s["signature"] for s in sends[index:]]
    details = [
        {
            "landed": landed,
            "notLanded": missing,
            "mint": attempt.mint,
            "genesisAccount": attempt.genesis,
        }
    ]
    state = "needs_attention" if index > 0 else "failed"
    await ctx.journal.record_outcome(
        key,
        attempt.number,
        "partial" if index else "failed",
        state=state,
        error=why,
        details=details,
    )


# ── confirm ─────────────────────────────────────────────────────────────────


async def confirm(ctx: LaunchContext, key: str) -> None:
    """Poll every signature, batched, until all reach the profile's commitment."""
    record = await _record(ctx, key)
    if record.state != "submitted" or record.current is None:
        return
    signatures = [Signature.from_string(s) for s in record.current.signatures or []]
    ctx.progress(key, "confirm", f"{len(signatures)} signatures to {ctx.profile.commitment}")
    # What submit saw may already be enough (commitment `confirmed`): no poll at all.
    landings: list[Landing | None] = [
        Landing(s.get("slot", 0), s["level"], None) if "level" in s else None
        for s in record.current.sends or []
    ]
    while not (landings and all(x and x.reached(ctx.profile.commitment) for x in landings)):
        landings = [seen.landing for seen in await ctx.watcher.next_all(signatures)]
        if any(landing is None for landing in landings):
            # Rolled back with a fork: send again.
            await ctx.journal.set_state(
                key, "submitting", step="confirm", message="a transaction vanished"
            )
            return
        await ctx.renew(key)
    await ctx.journal.set_state(
        key,
        "confirmed",
        step="confirm",
        message=f"all {len(signatures)} at {ctx.profile.commitment}",
    )


# ── register ────────────────────────────────────────────────────────────────


async def register(ctx: LaunchContext, key: str) -> None:
    """POST /launches/register (idempotent). A 400 leaves the launch `register_failed`."""
    record = await _record(ctx, key)
    if record.state not in ("confirmed", "register_failed") or record.genesis is None:
        return
    ctx.progress(key, "register", f"genesis account {record.genesis}")
    try:
        answer = await ctx.client.register_launch(record.genesis, _config(record))
    except APIStatusError as exc:
        if exc.transient:
            raise  # still `confirmed`: a re-run or the registration retry registers it
        # 400 (and any other refusal): kept with the service's details for the retry flow.
        await ctx.journal.set_state(
            key,
            "register_failed",
            step="register",
            message=str(exc),
            error=str(exc),
            details=exc.details,
        )
        return
    await ctx.journal.record_registered(key, answer.to_json_echo())


STEPS = {"create": create, "sign": sign, "submit": submit, "confirm": confirm, "register": register}

__all__ = [
    "STEPS",
    "TERMINAL",
    "BlockhashExpired",
    "ChainError",
    "confirm",
    "create",
    "next_step",
    "register",
    "sign",
    "submit",
]
