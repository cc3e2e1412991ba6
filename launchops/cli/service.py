"""`launchops agents list | card` and `launchops tokens get`: read the service."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from launchops.cli.command import Call, shared
from launchops.cli.common import console, counted, error_line, print_json, short

if TYPE_CHECKING:
    from launchops.api.client import AsyncServiceClient

T = TypeVar("T")
AgentAddress = Annotated[str, typer.Argument(help="The agent's asset address (base58).")]
Mint = Annotated[str, typer.Argument(help="The token's mint address (base58).")]

agents_app = typer.Typer(
    rich_markup_mode=None, help="List and search agents, read their cards.", no_args_is_help=True
)
tokens_app = typer.Typer(
    rich_markup_mode=None, help="Look up tokens and their launches.", no_args_is_help=True
)


def with_client(call: Call, work: Callable[[AsyncServiceClient], Awaitable[T]]) -> T:
    """Run `work` with a client of the profile's service (or `--base-url`, `--network`)."""
    from launchops.api.client import AsyncServiceClient
    from launchops.api.fields import Network
    from launchops.errors import InvalidInputError

    settings = call.settings
    try:
        net = Network(call.network) if call.network else settings.network
    except ValueError:
        raise InvalidInputError(
            "bad --network", [("--network", "must be solana-mainnet or solana-devnet")]
        ) from None

    async def main() -> T:
        async with AsyncServiceClient(settings.base_url, network=net) as client:
            return await work(client)

    return call.run(main)  # in the embedded sandbox, as `launch`, on the sandbox profile


def _not_found(call: Call, mint: str) -> int:
    """One line for a token the service does not know on the network asked: which one,
    and, when `--network` asked another than the profile's, that the profile's launches
    are on its own (where `tokens get` asks without it). Exit code 1."""
    own = str(call.settings.network)
    asked = call.network or own
    line = f"404 Token not found: no token {mint} on {asked}"
    if asked != own:
        line += (
            f" (profile {call.profile} launches on {own}: without --network, tokens get asks there)"
        )
    error_line(line)
    return 1


def _address(value: str, argument: str, of: str) -> str:
    """`value` when it is a base58 public key; else the refusal, before anything is asked."""
    from solders.pubkey import Pubkey

    from launchops.errors import InvalidInputError

    try:
        Pubkey.from_string(value)
    except ValueError:
        why = f"must be a base58 public key of {of}, not {value!r}"
        raise InvalidInputError("invalid input", [(argument, why)]) from None
    return value


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d") if value else "-"


# ── agents ──────────────────────────────────────────────────────────────────


# Long for its options: one typer option a filter of GET /agents.
@agents_app.command("list")
@shared(network=True)
def agents_list(
    call: Call,
    query: Annotated[str | None, typer.Option(help="Free-text search over agent names.")] = None,
    sort: Annotated[str, typer.Option(help="latest or oldest (by registration time).")] = "latest",
    active_only: Annotated[bool, typer.Option("--active-only", help="Only active agents.")] = False,
    has_token: Annotated[
        bool, typer.Option("--has-token", help="Only agents with a token.")
    ] = False,
    has_services: Annotated[
        bool, typer.Option("--has-services", help="Only agents advertising services.")
    ] = False,
    spotlight: Annotated[
        bool, typer.Option("--spotlight", help="Only spotlighted agents.")
    ] = False,
    page: Annotated[int, typer.Option(min=1, help="Page number, from 1.")] = 1,
    page_size: Annotated[int, typer.Option(min=1, max=100, help="Agents per page, 1..100.")] = 24,
    all_pages: Annotated[bool, typer.Option("--all", help="Walk every page.")] = False,
) -> None:
    """List and search agents."""
    filters: dict[str, Any] = {
        "query": query,
        "sort": sort,
        "active_only": active_only or None,
        "has_agent_token": has_token or None,
        "has_services": has_services or None,
        "spotlight": spotlight or None,
    }

    async def work(client: AsyncServiceClient) -> tuple[list[Any], str]:
        if all_pages:
            agents = [a async for a in client.iter_agents(page_size=100, **filters)]
            return agents, counted(len(agents), "agent")
        result = await client.list_agents(page=page, page_size=page_size, **filters)
        footer = f"page {result.page} of {result.total_pages} · {counted(result.total, 'agent')}"
        return result.agents, footer

    agents, footer = with_client(call, work)
    if call.as_json:
        print_json([a.to_json_echo() for a in agents])
        return
    _print_agents(agents, footer)
    if not agents and page == 1:
        _empty_hint(call, any(value not in (None, "latest") for value in filters.values()))


def _print_agents(agents: list[Any], footer: str) -> None:
    """One line an agent; below 100 columns without the wallet (in --json and the card)."""
    from launchops.cli.common import console
    from launchops.cli.tables import Column, Listing

    out = console()
    wide = out.width >= 100
    columns = [Column("name", shrinks=True), Column("mint")]
    columns += [Column("wallet")] if wide else []
    columns += [Column(c) for c in ("token", "active", "spotlit", "verified")]  # dates: --json
    listing = Listing("Agents", columns, caption=footer)
    for a in agents:
        cells = [a.name, short(a.mint_address)]
        cells += [short(a.wallet_address)] if wide else []
        cells += [
            short(a.agent_token),
            "yes" if a.is_active else "no",
            "yes" if a.spotlighted_at else "-",
            "yes" if a.verified_at else "-",
        ]
        listing.add(cells)
    out.print(listing.render(out.width), soft_wrap=False)


def _empty_hint(call: Call, filtered: bool) -> None:
    """On a sandbox, what fills its registry: `sandbox seed` (its agents include active
    ones named for each skill, `research` first), and `--owner` for agents the profile's
    key owns (withdraw and agent launches need them)."""
    from launchops.errors import LaunchOpsError

    settings = call.settings
    if settings.service != "sandbox":
        return
    owner = "<your key>"
    if not settings.keypair.startswith("prefect-secret:"):
        from launchops.chain.keys import load_keypair

        with contextlib.suppress(LaunchOpsError):
            owner = str(load_keypair(settings.keypair, state_dir=settings.profile_dir).pubkey())
    where = "" if call.profile == "sandbox" else f" --profile {call.profile}"
    net = call.network or str(settings.network)
    where += "" if net == "solana-mainnet" else f" --network {net}"
    out = console()
    what = "no agent here matches" if filtered else "no agents on this sandbox yet"
    out.print(f"{what}; add some:", markup=False)
    out.print(f"  launchops sandbox seed{where}", markup=False)
    out.print(f"  launchops sandbox seed{where} --owner {owner}", markup=False, soft_wrap=False)
    out.print("  (--owner: agents this profile's key owns, to try withdraw and agent launches)")


@agents_app.command("card")
@shared(network=True)
def agents_card(call: Call, address: AgentAddress) -> None:
    """Print an agent's A2A card."""
    from launchops.api.client import FileCardCache
    from launchops.config.profiles import home

    _address(address, "address", "the agent's asset")

    async def fetch(client: AsyncServiceClient) -> Any:
        client.card_cache = FileCardCache(home() / "card-cache.json")  # If-None-Match next time
        return await client.get_agent_card(address)

    from launchops.errors import NotFoundError

    try:
        card = with_client(call, fetch)
    except NotFoundError as exc:
        error_line(
            f"{exc}: no agent {address} on {call.network or call.settings.network}; an agent's "
            "address is its Core asset's (its mint, as launchops agents list shows), not its "
            "wallet's"
        )
        raise typer.Exit(1) from None
    if call.as_json:
        print_json(card.to_json_echo())
        return
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    lines = [card.description or "", "", f"url: {card.url or '-'}", f"version: {card.version}"]
    # A word longer than the panel (the card's URL) ends in "…", never cut silently.
    body = Text("\n".join(lines), overflow="ellipsis")
    console().print(Panel(body, title=Text(card.name), expand=False))
    if card.skills:
        table = Table(title="Skills")
        for column in ("id", "name", "tags"):
            table.add_column(column, overflow="ellipsis")
        table.add_column("description")  # wrapped at word boundaries
        for s in card.skills:
            table.add_row(
                *(Text(cell) for cell in (s.id, s.name, ", ".join(s.tags), s.description))
            )
        console().print(table)


# ── tokens ──────────────────────────────────────────────────────────────────


@tokens_app.command("get")
@shared(network=True)
def tokens_get(call: Call, mint: Mint) -> None:
    """Show a token and every launch of it."""
    from launchops.errors import NotFoundError

    _address(mint, "mint", "the token")
    try:
        data = with_client(call, lambda c: c.get_token(mint))
    except NotFoundError:
        raise typer.Exit(_not_found(call, mint)) from None
    if call.as_json:
        print_json(data.to_json_echo())
        return
    from rich.panel import Panel
    from rich.text import Text

    from launchops.cli.tables import Column, Listing, print_listing

    token = data.base_token
    socials = ", ".join(f"{k}: {v}" for k, v in data.socials.to_wire().items()) or "-"
    body = f"{token.description}\n\nmint: {token.address}\nwebsite: {data.website or '-'}"
    title = Text(f"{token.name} ({token.symbol})")
    console().print(Panel(Text(f"{body}\nsocials: {socials}"), title=title))
    columns = [Column(c) for c in ("type", "status", "genesis account", "start", "end")]
    launches = Listing("Launches", columns)
    for launch in data.launches:  # its page on a line of its own below it, never broken
        cells = [launch.type, launch.status, short(launch.genesis_address)]
        launches.add([*cells, _when(launch.start_time), _when(launch.end_time)], launch.launch_page)
    print_listing(launches)
