"""`launchops agents ...` and `launchops tokens ...`: read the service."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from launchops.api.client import AsyncServiceClient

T = TypeVar("T")
DEFAULT_BASE_URL = "http://127.0.0.1:8899/v1"

agents_app = typer.Typer(
    rich_markup_mode=None, help="List and search agents, read their cards.", no_args_is_help=True
)
tokens_app = typer.Typer(
    rich_markup_mode=None, help="Look up tokens and their launches.", no_args_is_help=True
)

BaseUrl = Annotated[
    str,
    typer.Option(
        "--base-url",
        envvar="LAUNCHOPS_BASE_URL",
        help="The service's base URL, with its /v1 prefix.",
        show_default=True,
    ),
]
NetworkOpt = Annotated[
    str,
    typer.Option(
        "--network",
        envvar="LAUNCHOPS_NETWORK",
        help="solana-mainnet or solana-devnet.",
        show_default=True,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


# ── plumbing ────────────────────────────────────────────────────────────────


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


@contextmanager
def user_errors(base_url: str | None = None) -> Iterator[None]:
    """Turn the library's errors into one clear line and exit code 1, never a traceback."""
    from launchops.api.errors import InvalidInputError, LaunchOpsError, NetworkError

    try:
        yield
    except InvalidInputError as exc:
        err = console(stderr=True)
        err.print("[bold red]error:[/] invalid input")
        for field, message in exc.problems or [("", str(exc))]:
            err.print(f"  {field}: {message}" if field else f"  {message}", markup=False)
        raise typer.Exit(1) from None
    except NetworkError as exc:
        err = console(stderr=True)
        err.print(f"[bold red]error:[/] cannot reach the service: {exc}", markup=True)
        if base_url and base_url.startswith(("http://127.0.0.1", "http://localhost")):
            err.print("  hint: is the sandbox running? Start it with `launchops sandbox serve`.")
        raise typer.Exit(1) from None
    except LaunchOpsError as exc:
        console(stderr=True).print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1) from None


def _run_with_client(
    base_url: str, network: str, work: Callable[[AsyncServiceClient], Awaitable[T]]
) -> T:
    import asyncio

    from launchops.api.client import AsyncServiceClient
    from launchops.api.errors import InvalidInputError
    from launchops.api.fields import Network

    try:
        net = Network(network)
    except ValueError:
        raise InvalidInputError(
            "bad --network", [("--network", "must be solana-mainnet or solana-devnet")]
        ) from None

    async def main() -> T:
        async with AsyncServiceClient(base_url, network=net) as client:
            return await work(client)

    return asyncio.run(main())


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def short(address: Any) -> str:
    """A base58 address as tables show it (`HrpvHK…N1j2DS`); --json keeps it whole."""
    text = str(address) if address else ""
    return f"{text[:6]}…{text[-6:]}" if len(text) > 16 else text or "-"


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d") if value else "-"


# ── agents ──────────────────────────────────────────────────────────────────


@agents_app.command("list")
def agents_list(
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
    base_url: BaseUrl = DEFAULT_BASE_URL,
    network: NetworkOpt = "solana-mainnet",
    as_json: JsonOpt = False,
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
            return agents, f"{len(agents)} agents"
        result = await client.list_agents(page=page, page_size=page_size, **filters)
        footer = f"page {result.page} of {result.total_pages} · {result.total} agents"
        return result.agents, footer

    with user_errors(base_url):
        agents, footer = _run_with_client(base_url, network, work)
    if as_json:
        _print_json([a.to_json_echo() for a in agents])
        return
    from rich import box
    from rich.table import Table

    table = Table(
        title="Agents",
        caption=footer,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
    )
    table.add_column("name", overflow="fold", min_width=8)
    for column in ("mint", "wallet", "token"):
        table.add_column(column, no_wrap=True, min_width=13)
    for column in ("active", "spotlit", "verified"):  # the dates are in --json
        table.add_column(column, no_wrap=True)
    for a in agents:
        table.add_row(
            a.name,
            short(a.mint_address),
            short(a.wallet_address),
            short(a.agent_token),
            "yes" if a.is_active else "no",
            "yes" if a.spotlighted_at else "-",
            "yes" if a.verified_at else "-",
        )
    console().print(table)


@agents_app.command("card")
def agents_card(
    address: Annotated[str, typer.Argument(help="The agent's asset address (base58).")],
    base_url: BaseUrl = DEFAULT_BASE_URL,
    network: NetworkOpt = "solana-mainnet",
    as_json: JsonOpt = False,
) -> None:
    """Print an agent's A2A card."""
    from launchops.api.client import FileCardCache
    from launchops.config.profiles import home

    async def fetch(client: AsyncServiceClient) -> Any:
        client.card_cache = FileCardCache(home() / "card-cache.json")  # If-None-Match next time
        return await client.get_agent_card(address)

    with user_errors(base_url):
        card = _run_with_client(base_url, network, fetch)
    if as_json:
        _print_json(card.to_json_echo())
        return
    from rich.panel import Panel
    from rich.table import Table

    lines = [card.description or "", "", f"url: {card.url or '-'}", f"version: {card.version}"]
    console().print(Panel("\n".join(lines), title=card.name, expand=False))
    if card.skills:
        table = Table(title="Skills")
        for column in ("id", "name", "tags", "description"):
            table.add_column(column, overflow="fold")
        for s in card.skills:
            table.add_row(s.id, s.name, ", ".join(s.tags), s.description)
        console().print(table)


# ── tokens ──────────────────────────────────────────────────────────────────


@tokens_app.command("get")
def tokens_get(
    mint: Annotated[str, typer.Argument(help="The token's mint address (base58).")],
    base_url: BaseUrl = DEFAULT_BASE_URL,
    network: NetworkOpt = "solana-mainnet",
    as_json: JsonOpt = False,
) -> None:
    """Show a token and every launch of it."""
    with user_errors(base_url):
        data = _run_with_client(base_url, network, lambda c: c.get_token(mint))
    if as_json:
        _print_json(data.to_json_echo())
        return
    from rich import box
    from rich.panel import Panel
    from rich.table import Table

    token = data.base_token
    socials = ", ".join(f"{k}: {v}" for k, v in data.socials.to_wire().items()) or "-"
    body = f"{token.description}\n\nmint: {token.address}\nwebsite: {data.website or '-'}"
    console().print(Panel(f"{body}\nsocials: {socials}", title=f"{token.name} ({token.symbol})"))
    table = Table(title="Launches", box=box.SIMPLE_HEAD, collapse_padding=True)
    for column in ("type", "status", "genesis account", "start", "end"):
        table.add_column(column, no_wrap=True)
    table.add_column("page", overflow="fold")
    for launch in data.launches:
        table.add_row(
            launch.type,
            launch.status,
            short(launch.genesis_address),
            _when(launch.start_time),
            _when(launch.end_time),
            launch.launch_page,
        )
    console().print(table)
