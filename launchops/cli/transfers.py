"""`launchops agents fund | withdraw | fund-batch`: move SOL to and from agent wallets,
checked before signing, journaled and resumable like launches."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from launchops.cli.command import Call, shared
from launchops.cli.service import AgentAddress as Address
from launchops.cli.service import agents_app
from launchops.cli.tables import print_batch

if TYPE_CHECKING:
    from launchops.library.results import BatchResult
    from launchops.states import Kind

Amount = Annotated[
    str, typer.Option("--amount", help="SOL, as decimal text, e.g. 0.25 (at most 9 decimals).")
]
TransferId = Annotated[
    str | None, typer.Option("--id", help="A new id repeats a transfer on purpose.")
]
Memo = Annotated[str, typer.Option("--memo", help="Recorded on chain, 1..256 characters.")]


@agents_app.command("fund")
@shared(sends=True)
def fund(
    call: Call, address: Address, amount: Amount, memo: Memo, transfer_id: TransferId = None
) -> None:
    """Send SOL to an agent's wallet (anyone may fund any agent)."""
    from launchops.states import Kind

    _transfer(call, Kind.FUND, address, amount, memo, transfer_id)


@agents_app.command("withdraw")
@shared(sends=True)
def withdraw(call: Call, address: Address, amount: Amount, transfer_id: TransferId = None) -> None:
    """Move SOL from an agent's wallet to its owner (the profile's key must own the asset)."""
    from launchops.states import Kind

    _transfer(call, Kind.WITHDRAW, address, amount, None, transfer_id)


def _transfer(
    call: Call, kind: Kind, address: str, amount: str, memo: str | None, transfer_id: str | None
) -> None:
    from launchops import library
    from launchops.cli.panels import print_transfer

    order = {"memo": memo, "transfer_id": transfer_id, "profile": call.settings}
    result = call.run(lambda: library.transfer(str(kind), address, amount, **order))
    call.show(result, lambda: print_transfer(result))
    if not result["finished"]:
        raise typer.Exit(1)


@agents_app.command("fund-batch")
@shared(sends=True, flow=True)
def fund_batch(
    call: Call,
    file: Annotated[Path, typer.Argument(help="YAML list or CSV of agent, amount, memo[, id].")],
    concurrency: Annotated[
        int | None, typer.Option(min=1, max=256, help="Transfers in flight.")
    ] = None,
) -> None:
    """Fund many agents from a list; re-running skips what was paid and resumes the rest."""
    from launchops import library
    from launchops.cli.common import refuse, refuse_folder

    refuse_folder(file, "a funding list", "give a CSV or YAML file of agent, amount, memo")
    if not file.is_file():  # refused before Prefect starts or the profile is read
        raise refuse(f"{file}: no such funding list (a CSV or YAML file)")
    from launchops.pipeline.transfers import read_funding_list

    read_funding_list(file)  # a list that is not one is refused before Prefect starts too

    async def plain() -> BatchResult:
        return await library.fund_agents(file, profile=call.settings, concurrency=concurrency)

    result = call.drive("funding:funding_flow", plain, path=str(file), concurrency=concurrency)
    print_batch(result.to_json(), call.as_json, "funding")
