"""`launchops agents fund | withdraw | fund-batch`: move SOL to and from agent wallets,
checked before signing, journaled and resumable like launches."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from launchops.cli.common import (
    BaseUrlOpt,
    JsonOpt,
    NoPrefect,
    ProfileOpt,
    ProfilesFile,
    Yes,
    drive,
    embedded_sandbox,
    print_json,
    run,
    settings_for,
    user_errors,
)
from launchops.cli.service import agents_app
from launchops.cli.tables import print_batch

if TYPE_CHECKING:
    from launchops.config.profiles import Profile
    from launchops.results import BatchResult
    from launchops.states import Kind

Amount = Annotated[
    str, typer.Option("--amount", help="SOL, as decimal text, e.g. 0.25 (at most 9 decimals).")
]
TransferId = Annotated[
    str | None, typer.Option("--id", help="A new id repeats a transfer on purpose.")
]
Address = Annotated[str, typer.Argument(help="The agent's asset address (base58).")]


@agents_app.command("fund")
def fund(
    address: Address,
    amount: Amount,
    memo: Annotated[str, typer.Option("--memo", help="Recorded on chain, 1..256 characters.")],
    transfer_id: TransferId = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    yes: Yes = False,
    as_json: JsonOpt = False,
) -> None:
    """Send SOL to an agent's wallet (anyone may fund any agent)."""
    from launchops.states import Kind

    with user_errors():
        settings = settings_for(profile, profiles, base_url, sending=True, yes=yes)
        order = (Kind.FUND, address, amount, memo, transfer_id)
        _transfer(settings, *order, as_json)


@agents_app.command("withdraw")
def withdraw(
    address: Address,
    amount: Amount,
    transfer_id: TransferId = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    yes: Yes = False,
    as_json: JsonOpt = False,
) -> None:
    """Move SOL from an agent's wallet to its owner (the profile's key must own the asset)."""
    from launchops.states import Kind

    with user_errors():
        settings = settings_for(profile, profiles, base_url, sending=True, yes=yes)
        _transfer(settings, Kind.WITHDRAW, address, amount, None, transfer_id, as_json)


def _transfer(
    settings: Profile,
    kind: Kind,
    address: str,
    amount: str,
    memo: str | None,
    transfer_id: str | None,
    as_json: bool,
) -> None:
    with embedded_sandbox(settings):
        from launchops import library

        order = {"memo": memo, "transfer_id": transfer_id}
        result = run(library.transfer(str(kind), address, amount, profile=settings, **order))
    if as_json:
        print_json(result)
    else:
        from launchops.cli.panels import print_transfer

        print_transfer(result)
    if not result["finished"]:
        raise typer.Exit(1)


@agents_app.command("fund-batch")
def fund_batch(
    file: Annotated[Path, typer.Argument(help="YAML list or CSV of agent, amount, memo[, id].")],
    concurrency: Annotated[
        int | None, typer.Option(min=1, max=256, help="Transfers in flight.")
    ] = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Fund many agents from a list; re-running skips what was paid and resumes the rest."""
    with user_errors():
        settings = settings_for(profile, profiles, base_url, sending=True, yes=yes)

        async def flow() -> BatchResult:
            from launchops.flows.funding import funding_flow
            from launchops.flows.outcome import result_of

            where = str(profiles) if profiles else None
            state = await funding_flow(
                str(file), settings.name, concurrency, profiles_file=where, return_state=True
            )
            return await result_of(state)

        async def plain() -> BatchResult:
            from launchops import library

            return await library.fund_agents(file, profile=settings, concurrency=concurrency)

        with embedded_sandbox(settings):
            result = drive(prefect=not no_prefect, flow=flow, plain=plain)
    print_batch(result.to_json(), as_json, "funding")
