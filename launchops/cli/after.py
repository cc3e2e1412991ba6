"""After the launch: `launchops agents mint FILE`, `launchops rewards claim`,
`launchops launches status | list`. Each calls the library (`launchops.after_library`)
or its Prefect flow; everything heavy loads inside the command."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.common import (
    BaseUrlOpt,
    JsonOpt,
    NoPrefect,
    ProfileOpt,
    ProfilesFile,
    Yes,
    console,
    drive,
    embedded_sandbox,
    print_json,
    run,
    settings_for,
    short,
    user_errors,
)
from launchops.cli.service import agents_app
from launchops.cli.tables import Column, Listing, print_listing

if TYPE_CHECKING:
    from launchops.after_results import AgentResult, ClaimResult, LaunchStatusResult

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
def mint(
    file: Annotated[Path, typer.Argument(help="An agent file (YAML; configs/agent.yaml).")],
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Mint the agent of FILE, once: a second run reports the agent already minted."""
    with user_errors():
        settings = settings_for(profile, profiles, base_url, sending=True, yes=yes)

        async def flow() -> AgentResult:
            from launchops.flows.agents import mint_agent_flow

            where = str(profiles) if profiles else None
            return await mint_agent_flow(str(file), settings.name, profiles_file=where)

        async def plain() -> AgentResult:
            from launchops.after_library import mint_agent

            return await mint_agent(file, profile=settings)

        with embedded_sandbox(settings):
            result = drive(prefect=not no_prefect, flow=flow, plain=plain)
    if as_json:
        print_json(result.to_json())
    else:
        listing = Listing(f"agent {result.key}: {result.state}", [Column("asset"), Column("tx")])
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
def claim(
    wallet: Annotated[
        str | None, typer.Option("--wallet", help="Whose fees (default: the profile's wallet).")
    ] = None,
    payer: Annotated[
        str | None, typer.Option("--payer", help="Who signs and pays (the profile's wallet).")
    ] = None,
    wallets: Annotated[
        Path | None, typer.Option("--wallets", help="A YAML list of wallets to claim for.")
    ] = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Claim creator rewards: each transaction once; nothing to claim is not an error."""
    with user_errors():
        settings = settings_for(profile, profiles, base_url, sending=True, yes=yes)

        async def flow() -> list[ClaimResult]:
            from launchops.flows.rewards import claim_rewards_flow

            return await claim_rewards_flow(
                str(wallets) if wallets else None,
                wallet,
                payer,
                settings.name,
                str(profiles) if profiles else None,
            )

        async def plain() -> list[ClaimResult]:
            from launchops.after_library import claim_rewards_in
            from launchops.library import opened
            from launchops.pipeline.claims import read_wallets

            rows = read_wallets(wallets) if wallets else [{"wallet": wallet, "payer": payer}]
            async with opened(settings) as ctx:
                return [await claim_rewards_in(ctx, r["wallet"], r["payer"]) for r in rows]

        with embedded_sandbox(settings):
            results = drive(prefect=not no_prefect, flow=flow, plain=plain)
    print_claims(results, as_json)
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
def status(
    launch: Annotated[str, typer.Argument(help="A genesis address, or a launch key.")],
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Where one launch stands at the service."""
    with user_errors():
        settings = settings_for(profile, profiles, base_url)
        from launchops.after_library import launch_status

        with embedded_sandbox(settings):
            result = run(launch_status(launch, profile=settings))
    print_statuses([result], as_json, single=True)


@launches_app.command("list")
def list_(
    status: Annotated[
        str | None,
        typer.Option("--status", help="upcoming, live, graduated or ended."),
    ] = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every launch on the profile's network (filtered by --status)."""
    with user_errors():
        from launchops.api.after import LAUNCH_STATUSES

        if status is not None and status not in LAUNCH_STATUSES:
            raise typer.BadParameter(f"--status must be one of {', '.join(LAUNCH_STATUSES)}")
        settings = settings_for(profile, profiles, base_url)
        from launchops.after_library import list_launches

        with embedded_sandbox(settings):
            results = run(list_launches(status, profile=settings))
    print_statuses(results, as_json)


def print_statuses(results: list[LaunchStatusResult], as_json: bool, single: bool = False) -> None:
    if as_json:
        data: Any = results[0].to_json() if single else [r.to_json() for r in results]
        print_json(data)
        return
    columns = [Column("symbol"), Column("status"), Column("genesis"), Column("mechanic")]
    listing = Listing(f"{len(results)} launches", [*columns, Column("key", shrinks=True)])
    for r in results:
        detail = r.launch_page if single else None
        listing.add([r.symbol, r.status, short(r.genesis_address), r.mechanic, r.key], detail)
    print_listing(listing)


__all__ = ["launches_app", "rewards_app"]
