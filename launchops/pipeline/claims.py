"""Creator-reward claims, journaled like a launch: the service builds the claim (one
transaction per bucket with fees), the profile's key signs it (as payer, or as the wallet
paying for itself), and each transaction is sent and confirmed once.

An expired blockhash asks the service again (the runner's create-again, once the last
build is provably dead); nothing is resent under a new blockhash by us. "Nothing to
claim" is an ordinary, finished outcome: the claim is `confirmed` with nothing claimed.
What was claimed is read from the chain: what the wallet holds (its lamports and its
wrapped SOL, where a curve's fees are claimed to) before the claim was signed and after
it was confirmed (net of fees and rent when the wallet pays them).

A wallet has at most one claim under way: a run resumes the unfinished one, else starts
the wallet's next (`claim-<wallet>-<n>`).
"""

from __future__ import annotations

import base64
from typing import Any

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.after import NothingToClaim
from launchops.chain.checks import Tables, _accounts, _transfer, account_keys
from launchops.errors import (
    APIStatusError,
    InvalidInputError,
    TransactionRefused,
)
from launchops.journal.records import LaunchRecord
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.steps import (
    Check,
    StepFunction,
    at_commitment,
    begin_order,
    next_attempt,
    previous_dead,
    record_built,
    refused,
    sign_through_tables,
    submit,
)
from launchops.states import Kind, LaunchState, Step, terminal


def _address(field: str, value: str | Pubkey | None) -> Pubkey | None:
    if value is None:
        return None
    try:
        return value if isinstance(value, Pubkey) else Pubkey.from_string(value)
    except ValueError:
        why = "must be a base58 public key"
        raise InvalidInputError(f"invalid claim: {field} {why}", [(field, why)]) from None


def claim_order(
    ctx: LaunchContext, wallet: str | Pubkey | None, payer: str | Pubkey | None
) -> dict[str, Any]:
    """Whose fees, who pays; the profile's key signs, so it must be the payer (or the
    wallet, paying for itself)."""
    owner = _address("wallet", wallet) or ctx.wallet
    paying = _address("payer", payer) or (None if owner == ctx.wallet else ctx.wallet)
    if (paying or owner) != ctx.wallet:
        why = f"must be the profile's wallet {ctx.wallet}, which signs the claim"
        raise InvalidInputError(f"invalid claim: payer {why}", [("payer", why)])
    return {
        "wallet": str(owner),
        "payer": str(paying) if paying else None,
        "network": str(ctx.profile.network),
    }


async def begin_claim(
    ctx: LaunchContext,
    wallet: str | Pubkey | None = None,
    payer: str | Pubkey | None = None,
    source: str = "command line",
) -> LaunchRecord:
    """The wallet's claim under way, else its next one, recorded `validated`."""
    order = claim_order(ctx, wallet, payer)
    mine = [
        r
        for r in await ctx.journal.all(kind=Kind.CLAIM)
        if r.config.get("wallet") == order["wallet"] and r.network == order["network"]
    ]
    for record in mine:
        if record.state not in terminal(Kind.CLAIM):
            return record
    number = 1 + max((int(r.config.get("number", 0)) for r in mine), default=0)
    config = {**order, "number": number}
    key = f"claim-{order['wallet']}-{number}"
    note = f"claim {number} of {order['wallet']}"
    return await begin_order(
        ctx, key, Kind.CLAIM, config, network=order["network"], source=source, note=note
    )


# ── the steps of a claim ────────────────────────────────────────────────────


async def build(ctx: LaunchContext, record: LaunchRecord) -> None:
    """POST /creator-rewards/claim (again only once the last build is provably dead)."""
    if not await previous_dead(ctx, record):
        return
    number = await next_attempt(ctx, record)
    if number is None:
        return
    config = record.config
    await ctx.check_lease(record.key)
    try:
        answer = await ctx.client.claim_creator_rewards(
            config["wallet"], network=config["network"], payer=config.get("payer")
        )
    except APIStatusError as exc:
        await refused(ctx, record, exc)
        return
    if isinstance(answer, NothingToClaim):
        await ctx.journal.set_result(
            record.key,
            {"nothingToClaim": True, "claimed": 0},
            step=Step.CREATE,
            message="nothing to claim",
            state=LaunchState.CONFIRMED,
        )
        return
    await record_built(ctx, record, number, answer.transactions, answer)


def checker(tables: Tables) -> Check:
    """Refuse, unsigned, a claim transaction that sends the signer's SOL anywhere but to
    the wallet claimed for (the payer pays fees and rent, nothing more)."""

    def check(ctx: LaunchContext, record: LaunchRecord, raw: bytes) -> None:
        tx = VersionedTransaction.from_bytes(raw)
        keys = account_keys(tx, tables)
        wallet = Pubkey.from_string(record.config["wallet"])
        for index, ix in enumerate(tx.message.instructions):
            amount = _transfer(bytes(ix.data))
            if keys[ix.program_id_index] != p.SYSTEM_PROGRAM or amount is None:
                continue
            source, target = _accounts(keys, ix, index, 2)[:2]
            if source == ctx.wallet and target != wallet:
                raise TransactionRefused(
                    f"claim instruction {index + 1} moves {amount} lamports of the payer "
                    f"{source} to {target}, not to the wallet claimed for"
                )

    return check


async def held(ctx: LaunchContext, wallet: Pubkey) -> int:
    """The wallet's lamports and its wrapped SOL: a curve's creator fees are claimed into
    its wrapped SOL account, a pool's as lamports."""
    wrapped = p.token_account_address(wallet, p.NATIVE_MINT)
    config = {"encoding": "base64", "commitment": "confirmed"}
    params: list[Any] = [[str(wallet), str(wrapped)], config]
    return (await ctx.rpc.call("getMultipleAccounts", params, _held))[0]


def _held(value: Any) -> int:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError("expected a list of 2")
    account, token = value
    lamports = int(account["lamports"]) if account else 0
    if token is None:
        return lamports
    data = base64.b64decode(token["data"][0], validate=True)
    return lamports + int.from_bytes(data[64:72], "little")


async def sign(ctx: LaunchContext, record: LaunchRecord) -> None:
    """Note what the wallet holds (nothing of this attempt is sent yet), check each
    transaction (through the lookup tables it loads, over RPC), then sign."""
    before = await held(ctx, Pubkey.from_string(record.config["wallet"]))
    await ctx.journal.set_result(
        record.key,
        {"nothingToClaim": False, "lamportsBefore": before},
        step=Step.SIGN,
        message=f"wallet holds {before} lamports before the claim",
    )
    await sign_through_tables(ctx, record, checker)


async def confirm(ctx: LaunchContext, record: LaunchRecord) -> None:
    """Every transaction at the profile's commitment; then the wallet's lamports after,
    kept with the state `confirmed` in one write."""
    if not await at_commitment(ctx, record):
        return
    after = await held(ctx, Pubkey.from_string(record.config["wallet"]))
    before = (record.result or {}).get("lamportsBefore")
    claimed = after - before if before is not None else None
    result = {
        "nothingToClaim": False,
        "lamportsBefore": before,
        "lamportsAfter": after,
        "claimed": claimed,
    }
    await ctx.journal.set_result(
        record.key,
        result,
        step=Step.CONFIRM,
        message=f"claimed {claimed} lamports" if claimed is not None else "claimed",
        state=LaunchState.CONFIRMED,
    )


CLAIM_STEPS: dict[Step, StepFunction] = {
    Step.CREATE: build,
    Step.SIGN: sign,
    Step.SUBMIT: submit,
    Step.CONFIRM: confirm,
}


__all__ = ["CLAIM_STEPS", "begin_claim", "checker", "claim_order"]
