"""Funds and withdraws, journaled and resumable like launches: their own step table
(build, check and sign), then the same submission and confirmation.

A transfer's key is its `id`, else a hash of what it moves (kind, agent, amount, memo,
sender, network): running the same command twice reports the first, it never pays twice.
Give a new id to repeat a transfer on purpose.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pydantic
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api.amounts import lamports
from launchops.api.fields import problems_of
from launchops.api.models import FundRequest, WithdrawRequest
from launchops.chain.checks import Tables, check_fund, check_withdraw
from launchops.config.files import parse_yaml, read_text
from launchops.errors import APIStatusError, InvalidInputError, LaunchFileError, Problem
from launchops.journal.records import LaunchRecord, TransferOrder
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.steps import (
    Check,
    StepFunction,
    begin_order,
    config_digest,
    confirm,
    next_attempt,
    record_built,
    refused,
    sign_through_tables,
    submit,
)
from launchops.states import Kind, Step, done


def transfer_order(
    kind: Kind, agent: str, amount: Any, memo: str | None, network: str, sender: Pubkey
) -> TransferOrder:
    """The checked transfer (exact decimal amount, base58 keys), or InvalidInputError."""
    kind = Kind(kind)
    model: Any = FundRequest if kind is Kind.FUND else WithdrawRequest
    body = {"sender": str(sender), "amount": amount, "network": network}
    if kind is Kind.FUND:
        body["memo"] = memo
    problems: list[tuple[str, str]] = []
    try:
        parsed = model.model_validate(body)
    except pydantic.ValidationError as exc:
        problems = problems_of(exc, body)
    try:
        asset = Pubkey.from_string(agent)
    except ValueError:
        problems.append(("agent", "must be a base58 public key of the agent's asset"))
    if problems:
        raise InvalidInputError(f"invalid {kind}", problems)
    return TransferOrder(
        agent=asset,
        amount=parsed.amount.normalize(),
        memo=memo if kind is Kind.FUND else None,
        network=str(parsed.network),
        sender=sender,
    )


def transfer_key(kind: Kind, order: TransferOrder, given: str | None = None) -> str:
    """A transfer's journal key: `given` when there is one, else its kind and 16 hex
    digits of a hash of what it moves (the same transfer twice is one key)."""
    digest = config_digest({"kind": str(kind), **order.to_json()})
    return given or f"{kind}-{digest[:16]}"


async def begin_transfer(
    ctx: LaunchContext,
    kind: Kind,
    *,
    agent: str,
    amount: Any,
    memo: str | None = None,
    network: str | None = None,
    given_id: str | None = None,
    source: str = "command line",
) -> LaunchRecord:
    """Check a fund or withdraw of `amount` SOL from the profile's wallet and record it
    in the journal (state `validated`), or find it there if recorded before;
    `InvalidInputError` when the agent, amount or memo is not valid."""
    kind = Kind(kind)
    order = transfer_order(
        kind, agent, amount, memo, network or str(ctx.profile.network), ctx.wallet
    )
    key = transfer_key(kind, order, given_id)
    note = f"{kind} {order.amount} SOL, agent {agent}"
    return await begin_order(
        ctx, key, kind, order.to_json(), network=order.network, source=source, note=note
    )


# ── the steps of a transfer: build, check and sign; then submit and confirm ──


async def build(ctx: LaunchContext, record: LaunchRecord) -> None:
    """The service builds the one transaction (again, after an expiry)."""
    number = await next_attempt(ctx, record)
    if number is None:
        return
    order = record.order
    common = {"sender": ctx.wallet, "amount": order.amount, "network": order.network}
    await ctx.check_lease(record.key)
    try:
        if record.kind is Kind.FUND:
            built = await ctx.client.build_fund_tx(order.agent, memo=order.memo, **common)
        else:
            built = await ctx.client.build_withdraw_tx(order.agent, **common)
    except APIStatusError as exc:
        await refused(ctx, record, exc)
        return
    await record_built(ctx, record, number, (built.tx,), built)


def checker(tables: Tables) -> Check:
    """The check of a fund or withdraw, reading accounts through the lookup tables given."""

    def check(ctx: LaunchContext, record: LaunchRecord, raw: bytes) -> None:
        """Refuse, unsigned, a fund or withdraw that is not exactly what was asked."""
        order = record.order
        tx = VersionedTransaction.from_bytes(raw)
        common = {"agent": order.agent, "sender": ctx.wallet, "tables": tables}
        amount = lamports(order.amount)
        if record.kind is Kind.FUND:
            assert order.memo is not None
            check_fund(tx, lamports=amount, memo=order.memo, **common)
        else:
            check_withdraw(tx, lamports=amount, **common)

    return check


async def sign(ctx: LaunchContext, record: LaunchRecord) -> None:
    """Resolve the lookup tables the transaction loads accounts from (over RPC), check
    what it moves through them, and sign it."""
    await sign_through_tables(ctx, record, checker)


TRANSFER_STEPS: dict[Step, StepFunction] = {
    Step.CREATE: build,
    Step.SIGN: sign,
    Step.SUBMIT: submit,
    Step.CONFIRM: confirm,
}


REQUIRED_COLUMNS = ("agent", "amount", "memo")
FUNDING_COLUMNS = (*REQUIRED_COLUMNS, "id", "network")


def read_funding_list(path: Path) -> list[dict[str, Any]]:
    """Rows of `agent, amount, memo[, id, network]` from a YAML list or a CSV with a header;
    a file that is not one (no header, a column or key it does not take, a row longer than
    the header) is refused naming the line and what to fix, never read as no rows."""
    text = read_text(path)
    if path.suffix.lower() == ".csv":
        rows, where = _csv_rows(path, text)
    else:
        data = parse_yaml(path, text)[1]
        data = data.get("transfers") if isinstance(data, dict) else data
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            problem = Problem(str(path), None, "(file)", "must be a list of {agent, amount, memo}")
            raise LaunchFileError([problem])
        rows, where = data, [None] * len(data)
    problems = []
    for index, (row, line) in enumerate(zip(rows, where, strict=True)):
        unknown = [str(k) for k in row if k not in FUNDING_COLUMNS]
        if unknown:
            at = f"row {index + 1}" if line is None else "(row)"
            problems.append(Problem(str(path), line, at, _not_taken(unknown)))
        for field in REQUIRED_COLUMNS:
            if row.get(field) in (None, ""):
                problems.append(Problem(str(path), line, field, "is required"))
        row["line"] = line
    if problems:
        raise LaunchFileError(problems)
    return rows


def _not_taken(names: list[str]) -> str:
    return f"takes only {', '.join(FUNDING_COLUMNS)}; not {', '.join(names)}"


def _csv_rows(path: Path, text: str) -> tuple[list[dict[str, Any]], list[int | None]]:
    """A CSV's rows by its header, each with its line number; a header without the columns
    a transfer needs, a column it does not take, or a row longer than the header is refused."""
    reader = csv.DictReader(text.splitlines())
    # a spreadsheet's export may begin with a byte order mark: not part of the first name
    header = [name.strip().lstrip("\ufeff") for name in reader.fieldnames or []]
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        found = ", ".join(header) if header else "nothing"
        found = found if found.isprintable() else repr(found)
        why = f"the first line must name the columns {', '.join(REQUIRED_COLUMNS)}; found {found}"
        raise LaunchFileError([Problem(str(path), 1, "(header)", why)])
    unknown = [name for name in header if name not in FUNDING_COLUMNS]
    if unknown:
        raise LaunchFileError([Problem(str(path), 1, "(header)", _not_taken(unknown))])
    reader.fieldnames = header
    rows, where, problems = [], [], []
    for row in reader:
        if None in row:  # more values than the header has columns
            why = f"has {len(header) + len(row[None])} values for {len(header)} columns"
            problems.append(Problem(str(path), reader.line_num, "(row)", why))
        rows.append({k: v for k, v in row.items() if k is not None})
        where.append(reader.line_num)
    if problems:
        raise LaunchFileError(problems)
    return rows, where


def transfer_summary(record: LaunchRecord, *, from_journal: bool = False) -> dict[str, Any]:
    """What the commands report of a transfer: key, kind, state, whether finished, agent,
    amount (SOL), memo, signatures, attempts, last error, and whether it was sent before
    this run (`fromJournal`: reported, nothing was sent)."""
    order = record.order
    return {
        "key": record.key,
        "kind": str(record.kind),
        "state": str(record.state),
        "finished": done(record.state, record.kind),
        "agent": str(order.agent),
        "amount": str(order.amount),
        "memo": order.memo,
        "signatures": record.signatures or None,
        "attempts": record.attempt,
        "error": record.last_error,
        "fromJournal": from_journal,
    }


__all__ = [
    "TRANSFER_STEPS",
    "begin_transfer",
    "read_funding_list",
    "transfer_key",
    "transfer_order",
    "transfer_summary",
]
