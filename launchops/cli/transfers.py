"""`launchops agents fund | withdraw | fund-batch`: move SOL to and from agent wallets,
checked before signing, journaled and resumable like launches."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.launches import (
    JsonOpt,
    NoPrefect,
    ProfileOpt,
    ProfilesFile,
    Yes,
    _needs_yes,
    _profile,
    _refuse,
    _run,
    embedded_sandbox,
)
from launchops.cli.service import agents_app, console, user_errors

if TYPE_CHECKING:
    from launchops.config.profiles import Profile

Amount = Annotated[
    str, typer.Option("--amount", help="SOL, as decimal text, e.g. 0.25 (at most 9 decimals).")
]
TransferId = Annotated[
    str | None, typer.Option("--id", help="A new id repeats a transfer on purpose.")
]


@agents_app.command("fund")
def fund(
    address: Annotated[str, typer.Argument(help="The agent's asset address (base58).")],
    amount: Amount,
    memo: Annotated[str, typer.Option("--memo", help="Recorded on chain, 1..256 characters.")],
    transfer_id: TransferId = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    yes: Yes = False,
    as_json: JsonOpt = False,
) -> None:
    """Send SOL to an agent's wallet (anyone may fund any agent)."""
    _transfer("fund", address, amount, memo, transfer_id, profile, profiles, yes, as_json)


@agents_app.command("withdraw")
def withdraw(
    address: Annotated[str, typer.Argument(help="The agent's asset address (base58).")],
    amount: Amount,
    transfer_id: TransferId = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    yes: Yes = False,
    as_json: JsonOpt = False,
) -> None:
    """Move SOL from an agent's wallet to its owner (the profile's key must own the asset)."""
    _transfer("withdraw", address, amount, None, transfer_id, profile, profiles, yes, as_json)


def _transfer(
    kind: str,
    address: str,
    amount: str,
    memo: str | None,
    transfer_id: str | None,
    profile: str,
    profiles: Path | None,
    yes: bool,
    as_json: bool,
) -> None:
    with user_errors():
        settings = _profile(profile, profiles)
        if settings.requires_yes and not yes:
            raise _refuse(_needs_yes(profile, settings))
        result = _run(_one(settings, kind, address, amount, memo, transfer_id))
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        ok = result["state"] == "confirmed"
        lines = [
            f"{kind} {result['amount']} SOL  agent {result['agent']}",
            f"state      {result['state']}",
        ]
        for signature in result["signatures"] or []:
            lines.append(f"signature  {signature}")
        if result["error"]:
            lines.append(f"error      {result['error']}")
        console().print("\n".join(lines), style=None if ok else "red")
    if result["state"] != "confirmed":
        raise typer.Exit(1)


async def _one(
    settings: Profile,
    kind: str,
    address: str,
    amount: str,
    memo: str | None,
    transfer_id: str | None,
) -> dict[str, Any]:
    from launchops.pipeline.context import open_context
    from launchops.pipeline.runner import run_launch
    from launchops.pipeline.transfers import begin_transfer

    async with open_context(settings) as ctx:
        record = await begin_transfer(
            ctx, kind, agent=address, amount=amount, memo=memo, given_id=transfer_id
        )
        record = await run_launch(ctx, record.key)
    return transfer_summary(record)


def transfer_summary(record: Any) -> dict[str, Any]:
    return {
        "key": record.key,
        "kind": record.kind,
        "state": record.state,
        "agent": record.config["agent"],
        "amount": record.config["amount"],
        "memo": record.config.get("memo"),
        "signatures": record.current.signatures if record.current else None,
        "attempts": record.attempt,
        "error": record.last_error,
    }


@agents_app.command("fund-batch")
def fund_batch(
    file: Annotated[Path, typer.Argument(help="YAML list or CSV of agent, amount, memo[, id].")],
    concurrency: Annotated[
        int | None, typer.Option(min=1, max=256, help="Transfers in flight.")
    ] = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Fund many agents from a list; re-running skips what was paid and resumes the rest."""
    from launchops.cli.batches import _quiet_prefect, _report

    with user_errors():
        settings = _profile(profile, profiles)
        if settings.requires_yes and not yes:
            raise _refuse(_needs_yes(profile, settings))
        with embedded_sandbox(settings):
            if no_prefect:
                result = _run(_plain_funding(settings, file, concurrency))
            else:
                _quiet_prefect()
                from flows.funding import funding_flow

                result = _run(
                    funding_flow(
                        path=str(file),
                        profile=profile,
                        concurrency=concurrency,
                        profiles_file=str(profiles) if profiles else None,
                    )
                )
    _report(result, as_json, "funding")


async def _plain_funding(settings: Profile, file: Path, concurrency: int | None) -> dict[str, Any]:
    from launchops.pipeline.batch import batch_result, run_funding
    from launchops.pipeline.context import open_context

    async with open_context(settings) as ctx:
        rows = await run_funding(ctx, file, concurrency=concurrency)
    return batch_result(rows, settings.profile_dir / "reports", "funding")
