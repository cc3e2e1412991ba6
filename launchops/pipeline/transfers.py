"""Funds and withdraws, journaled and resumable like launches, over the same steps.

A transfer's key is its `id`, else a hash of what it moves (kind, agent, amount, memo,
sender, network): running the same command twice reports the first, it never pays twice.
Give a new id to repeat a transfer on purpose.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

import pydantic

from launchops.api.errors import InvalidInputError, LaunchFileError, Problem
from launchops.api.fields import Network, problems_of
from launchops.api.models import FundRequest, WithdrawRequest
from launchops.config.files import parse_yaml, read_text
from launchops.journal.store import LaunchRecord
from launchops.pipeline.context import LaunchContext

KINDS = ("fund", "withdraw")


def transfer_config(
    kind: str, agent: str, amount: Any, memo: str | None, network: str, sender: Any
) -> dict[str, Any]:
    """The checked transfer (exact decimal amount, base58 keys), or InvalidInputError."""
    model: Any = FundRequest if kind == "fund" else WithdrawRequest
    body = {"sender": str(sender), "amount": amount, "network": network}
    if kind == "fund":
        body["memo"] = memo
    problems: list[tuple[str, str]] = []
    try:
        parsed = model.model_validate(body)
    except pydantic.ValidationError as exc:
        problems = problems_of(exc, body)
    from solders.pubkey import Pubkey

    try:
        Pubkey.from_string(agent)
    except ValueError:
        problems.append(("agent", "must be a base58 public key of the agent's asset"))
    if problems:
        raise InvalidInputError(f"invalid {kind}", problems)
    return {
        "agent": agent,
        "amount": str(parsed.amount.normalize()),
        "memo": memo if kind == "fund" else None,
        "network": str(parsed.network),
        "sender": str(sender),
    }


def transfer_key(kind: str, config: dict[str, Any], given: str | None = None) -> str:
    digest = hashlib.sha256(
        json.dumps({"kind": kind, **config}, sort_keys=True).encode()
    ).hexdigest()
    return given or f"{kind}-{digest[:16]}"


async def begin_transfer(
    ctx: LaunchContext,
    kind: str,
    *,
    agent: str,
    amount: Any,
    memo: str | None = None,
    network: str | None = None,
    given_id: str | None = None,
    source: str = "command line",
) -> LaunchRecord:
    config = transfer_config(
        kind, agent, amount, memo, network or str(ctx.profile.network), ctx.wallet
    )
    key = transfer_key(kind, config, given_id)
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
    ctx.progress(key, "validate", f"{kind} {config['amount']} SOL, agent {agent}")
    return await ctx.journal.begin(
        key, kind=kind, config=config, config_hash=digest, network=config["network"], source=source
    )


def read_funding_list(path: Path) -> list[dict[str, Any]]:
    """Rows of `agent, amount, memo[, id, network]` from a YAML list or a CSV with a header."""
    text = read_text(path)
    if path.suffix.lower() == ".csv":
        rows = [dict(r) for r in csv.DictReader(text.splitlines())]
        where = [index + 2 for index in range(len(rows))]  # line numbers, after the header
    else:
        data = parse_yaml(path, text)[1]
        data = data.get("transfers") if isinstance(data, dict) else data
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            problem = Problem(str(path), None, "(file)", "must be a list of {agent, amount, memo}")
            raise LaunchFileError([problem])
        rows, where = data, [None] * len(data)
    problems = []
    for row, line in zip(rows, where, strict=True):
        for field in ("agent", "amount", "memo"):
            if row.get(field) in (None, ""):
                problems.append(Problem(str(path), line, field, "is required"))
        row["line"] = line
    if problems:
        raise LaunchFileError(problems)
    return rows


__all__ = [
    "KINDS",
    "Network",
    "begin_transfer",
    "read_funding_list",
    "transfer_config",
    "transfer_key",
]
