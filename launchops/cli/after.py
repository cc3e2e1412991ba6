"""After the launch: `launchops agents mint FILE`, `launchops rewards claim`,
`launchops launches status | list`. Each calls the library (`launchops.library.after`)
or its Prefect flow; everything heavy loads inside the command."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.command import Call, shared
from launchops.cli.common import console, counted, print_json, refuse, refuse_folder, short
from launchops.cli.service import agents_app
from launchops.cli.tables import Column, Listing, print_listing

if TYPE_CHECKING:
    from launchops.library.after_results import AgentResult, ClaimResult, LaunchStatusResult

rewards_app = typer.Typer(
    help="Creator rewards: claim the fees your launches earned.", no_args_is_help=True
)
launches_app = typer.Typer(
    help="Where launches stand at the service: upcoming, live, graduated, ended.",
    no_args_is_help=True,
)


def sol(lamports: int | None) -> str:
    return "-" if lamports is None else f"{Decimal(lamports) / 10**9:f} SOL"


# ── agents mint ─────────────────────────────────────────────────────────────


@agents_app.command("mint")
@shared(sends=True, flow=True)
def mint(
    call: Call,
    file: Annotated[Path, typer.Argument(help="An agent file (YAML; configs/agent.yaml).")],
) -> None:
    """Mint the agent of FILE, once: a second run reports the agent already minted."""
    from launchops.library.after import mint_agent

    refuse_folder(file, "an agent file", "give a YAML file such as configs/agent.yaml")
    if not file.is_file():  # refused before Prefect starts
        raise refuse(f"{file}: no such agent file")

    async def plain() -> AgentResult:
        return await mint_agent(file, profile=call.settings)

    result = call.drive("agents:mint_agent_flow", plain, path=str(file))
    if call.as_json:
        print_json(result.to_json())
    else:
        # minted before this run: reported from the journal, and said so
        outcome = "already minted, from the journal" if result.from_journal else result.state
        listing = Listing(f"agent {result.key}: {outcome}", [Column("asset"), Column("tx")])
        listing.add([result.asset, short(result.signatures[0] if result.signatures else None)])
        print_listing(listing)
        if result.finished:
            console().print(f"in a launch file:  agent: {{mint: {result.asset}}}", markup=False)
        elif result.error:
            console().print(result.error, markup=False)
    if not result.finished:
        raise typer.Exit(1)


# ── rewards claim ───────────────────────────────────────────────────────────


@rewards_app.command("claim")
@shared(sends=True, flow=True)
def claim(
    call: Call,
    wallet: Annotated[
        str | None, typer.Option("--wallet", help="Whose fees (default: the profile's wallet).")
    ] = None,
    payer: Annotated[
        str | None, typer.Option("--payer", help="Who signs and pays (the profile's wallet).")
    ] = None,
    wallets: Annotated[
        Path | None, typer.Option("--wallets", help="A YAML list of wallets to claim for.")
    ] = None,
) -> None:
    """Claim creator rewards: each transaction once; nothing to claim is not an error."""
    if wallets is not None:  # the file's problems before Prefect starts or anything is sent
        from launchops.config.wallets import read_wallets

        refuse_folder(wallets, "a wallets list", "give a YAML file of wallets")
        if not wallets.exists():
            raise refuse(f"--wallets {wallets}: no such wallets list (a YAML file)")
        read_wallets(wallets)

    async def plain() -> list[ClaimResult]:
        from launchops.library.after import claim_all_in
        from launchops.library.launches import opened

        async with opened(call.settings) as ctx:
            return await claim_all_in(ctx, wallets, wallet, payer)

    where = str(wallets) if wallets else None
    flow = "rewards:claim_rewards_flow"
    results = call.drive(flow, plain, wallets=where, wallet=wallet, payer=payer)
    print_claims(results, call.as_json)
    if not all(r.finished for r in results):
        raise typer.Exit(1)


def print_claims(results: list[ClaimResult], as_json: bool) -> None:
    if as_json:
        print_json([r.to_json() for r in results] if len(results) != 1 else results[0].to_json())
        return
    columns = [Column("wallet"), Column("state"), Column("claimed", right=True), Column("before")]
    listing = Listing("creator rewards", [*columns, Column("after")])
    for r in results:
        claimed = "nothing to claim" if r.nothing_to_claim else sol(r.claimed)
        cells = [short(r.wallet), str(r.state), claimed, sol(r.lamports_before)]
        listing.add([*cells, sol(r.lamports_after)], r.error)
    print_listing(listing)


# ── launches status | list ──────────────────────────────────────────────────


@launches_app.command("status")
@shared()
def status(
    call: Call,
    launch: Annotated[str, typer.Argument(help="A genesis address, or a launch key.")],
) -> None:
    """Where one launch stands at the service."""
    from launchops.library.after import launch_status

    result = call.run(lambda: launch_status(launch, profile=call.settings))
    print_statuses([result], call.as_json, single=True)


@launches_app.command("list")
@shared()
def list_(
    call: Call,
    status: Annotated[
        str | None,
        typer.Option("--status", help="upcoming, live, graduated or ended."),
    ] = None,
) -> None:
    """Every launch on the profile's network (filtered by --status)."""
    from launchops.api.after import LAUNCH_STATUSES
    from launchops.library.after import list_launches

    if status is not None and status not in LAUNCH_STATUSES:
        raise typer.BadParameter(f"--status must be one of {', '.join(LAUNCH_STATUSES)}")
    results = call.run(lambda: list_launches(status, profile=call.settings))
    print_statuses(results, call.as_json)


def print_statuses(results: list[LaunchStatusResult], as_json: bool, single: bool = False) -> None:
    if as_json:
        data: Any = results[0].to_json() if single else [r.to_json() for r in results]
        print_json(data)
        return
    columns = [Column("symbol"), Column("status"), Column("genesis"), Column("mechanic")]
    listing = Listing(counted(len(results), "launch"), [*columns, Column("key", shrinks=True)])
    for r in results:
        detail = r.launch_page if single else None
        listing.add([r.symbol, r.status, short(r.genesis_address), r.mechanic, r.key], detail)
    print_listing(listing)


__all__ = ["launches_app", "rewards_app"]
