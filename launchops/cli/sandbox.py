"""`launchops sandbox ...`: run the local service, seed it, set its faults, read its stats.

Only typer is imported at module level; FastAPI and LiteSVM load when a command runs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from launchops.cli.common import BaseUrlOpt, ProfileOpt, counted

app = typer.Typer(
    rich_markup_mode=None,
    help="The local service and chain: serve, seed, faults, stats.",
    no_args_is_help=True,
)

SandboxUrl = Annotated[
    str | None,
    typer.Option(
        "--url",
        envvar="LAUNCHOPS_SANDBOX_URL",
        help="The running sandbox's root URL (default: the profile's RPC URL).",
    ),
]


def _fail(message: str) -> typer.Exit:
    typer.secho(f"error: {message}", fg="red", err=True)
    return typer.Exit(1)


# Faults that map a name to a number: set as KEY:VALUE (one entry) or a JSON object (all).
DICT_FAULTS = frozenset(
    {"fail_next", "rpc_faults", "rpc_fault_next", "rpc_lag_slots", "api_faults", "api_fault_next"}
)


def _faults(settings: list[str], base: dict[str, Any] | None = None) -> Any:
    """`name=value` pairs over `base`, validated as Faults; a clear error names the bad one."""
    import pydantic

    from launchops.sandbox.faults import Faults

    values: dict[str, Any] = dict(base or {})
    for setting in settings:
        name, sep, raw = setting.partition("=")
        if not sep or name not in Faults.model_fields:
            known = ", ".join(Faults.model_fields)
            raise _fail(f"--fault {setting!r}: expected NAME=VALUE with NAME one of {known}")
        if name in DICT_FAULTS and raw.lstrip().startswith("{"):
            try:
                values[name] = json.loads(raw)  # the whole mapping, as JSON
            except ValueError:
                raise _fail(f"--fault {name}: {raw!r} is not a JSON object") from None
        elif name in DICT_FAULTS:  # one entry: KEY:VALUE (KEY may hold colons)
            key, _, amount = raw.rpartition(":")
            values[name] = {**values.get(name, {}), key: amount}
        else:
            values[name] = raw
    try:
        return Faults.model_validate(values)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        raise _fail(f"--fault {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def _root(url: str | None, profile: str, base_url: str | None = None) -> str:
    """The sandbox to talk to: --url, else its --base-url without /v1, else where the
    profile's RPC is."""
    if url:
        return url
    if base_url:
        return base_url.rstrip("/").removesuffix("/v1")
    from urllib.parse import urlsplit

    from launchops.config.profiles import load_profile
    from launchops.errors import InvalidInputError

    try:
        where = urlsplit(load_profile(profile).rpc_url)
    except InvalidInputError as exc:
        raise _fail(str(exc)) from None
    return f"{where.scheme}://{where.netloc}"


def _admin(method: str, url: str, path: str, hint: str = "", **kw: Any) -> Any:
    import httpx

    import launchops.web as web
    from launchops.urls import shown

    try:
        response = web.request(method, url.rstrip("/") + path, timeout=30, **kw)
    except httpx.TransportError as exc:
        raise _fail(
            f"cannot reach the sandbox at {shown(url)} ({exc}); {hint}start it: launchops sandbox "
            "serve (it serves the sandbox profile's kept chain)"
        ) from None
    if response.status_code >= 400:  # the service's envelope, read as the client reads it
        from launchops.api.responses import error_from_response

        raise _fail(str(error_from_response(response)))
    return response.json()


HostOpt = Annotated[str | None, typer.Option(help="Address to listen on (default: the profile's).")]
PortOpt = Annotated[
    int | None,
    typer.Option(
        min=0,
        max=65534,  # PubSub takes the next one
        help="API and JSON-RPC port; PubSub is on port + 1 (default: the profile's).",
    ),
]
SlotMsOpt = Annotated[
    int | None,
    typer.Option(
        "--slot-ms", min=0, help="Slot time; 0 = one slot per call that watches the chain."
    ),
]
DataOpt = Annotated[
    Path | None,
    typer.Option("--data", help="Folder to keep chain and registry in across restarts."),
]
FreshOpt = Annotated[
    bool, typer.Option("--fresh", help="A throwaway chain in memory, not the profile's kept one.")
]
SeedAgentsOpt = Annotated[int, typer.Option("--seed-agents", min=0, help="Agents to add at start.")]
FaultOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--fault", help="A fault at start: drop_rate=0.3, latency_ms=200, fail_next=ENDPOINT:N ..."
    ),
]
ServedProfileOpt = Annotated[
    str,
    typer.Option(
        "--profile",
        help="The sandbox profile whose chain is served (its address, slot time and kept "
        "chain: what its launches ran on, their pages included).",
    ),
]


@app.command()
def serve(
    host: HostOpt = None,
    port: PortOpt = None,
    slot_ms: SlotMsOpt = None,
    data: DataOpt = None,
    fresh: FreshOpt = False,
    seed_agents: SeedAgentsOpt = 0,
    fault: FaultOpt = None,
    profile: ServedProfileOpt = "sandbox",
) -> None:
    """Serve the /v1 API, JSON-RPC and PubSub on loopback until interrupted: the profile's
    kept chain (what `launch` ran on), or --fresh, or --data DIR."""
    faults = _faults(fault or [])
    if fresh and data is not None:
        raise _fail("give --fresh (a chain in memory) or --data DIR, not both")
    kept = not fresh and data is None
    place = _profile_chain(profile, required=kept) or Place("127.0.0.1", 8899, 400, None)
    host, port = host or place.host, port or place.port
    slot_ms, data = place.slot_ms if slot_ms is None else slot_ms, place.data if kept else data
    from launchops.errors import SandboxUnavailable
    from launchops.sandbox.server import Sandbox, SandboxConfig

    try:
        sandbox = Sandbox(SandboxConfig(host, port, slot_ms, data, faults, seed_agents))
        sandbox.open()
    except OSError as exc:
        raise _fail(f"cannot listen on {host}:{port} and {port + 1}: {_listen_hint(exc)}") from None
    except SandboxUnavailable as exc:
        raise _fail(str(exc)) from None
    note = f" (profile {profile}'s kept chain)" if kept else ""
    _announce(sandbox, slot_ms, f"  data      {data}{note}" if data else None)
    sandbox.serve_forever()


def _listen_hint(exc: OSError) -> str:
    """Why the sandbox could not listen, and which option to change."""
    import errno
    import socket

    if exc.errno == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror):
        return f"{exc.strerror}; --host must be an address of this machine (127.0.0.1, 0.0.0.0)"
    if exc.errno == errno.EACCES:
        return f"{exc.strerror}; a port below 1024 needs root: pick another --port"
    return f"{exc.strerror or exc}; pick another --port"


def _announce(sandbox: Any, slot_ms: int, data: str | None) -> None:
    typer.echo(f"launchops sandbox on {sandbox.url}")
    typer.echo(f"  API       {sandbox.base_url}")
    typer.echo(f"  JSON-RPC  {sandbox.rpc_url}")
    typer.echo(f"  PubSub    {sandbox.ws_url}")
    typer.echo(f"  admin     {sandbox.url}/_sandbox/stats, /_sandbox/faults")
    typer.echo(
        f"  slots     every {slot_ms} ms"
        if slot_ms
        else "  slots     one per call that watches the chain"
    )
    typer.echo(data or "  data      in memory, thrown away when it stops (--fresh)")
    sys.stdout.flush()


class Place(NamedTuple):
    """Where a sandbox listens, its slot time and the folder its chain is kept in."""

    host: str
    port: int
    slot_ms: int
    data: Path | None


def _profile_chain(name: str, required: bool = True) -> Place | None:
    """Where a sandbox profile's embedded sandbox listens, its slot time and its chain;
    None for a profile that does not run on the sandbox, unless `required`."""
    from urllib.parse import urlsplit

    settings = _embedded(name, None, required=required)
    if settings is None:
        return None
    where = urlsplit(settings.rpc_url)
    data = settings.profile_dir / "sandbox-chain"
    return Place(where.hostname or "127.0.0.1", where.port or 8899, settings.sandbox_slot_ms, data)


@contextmanager
def _running(url: str | None, profile: str, base_url: str | None) -> Iterator[str]:
    """The sandbox to talk to: --url, else the
    profile's, started in this process (on its kept chain) when none answers there, as
    `launch` starts it."""
    if url:
        yield url
        return
    root = _root(None, profile, base_url)
    from launchops.pipeline.embedded import sandbox_running, start_embedded_sandbox

    settings = None if sandbox_running(root) else _embedded(profile, base_url)
    if settings is None:
        yield root
        return
    from launchops.errors import LaunchOpsError

    try:
        started = start_embedded_sandbox(settings)
    except LaunchOpsError as exc:
        raise _fail(str(exc)) from None
    try:
        yield started.url if started else root
    finally:
        if started is not None:
            started.stop()


def _embedded(name: str, base_url: str | None, required: bool = False) -> Any:
    """The profile `name` (with --base-url) when it runs on the embedded sandbox; else
    None, or with `required`, one line saying why not."""
    from launchops.api.errors import InvalidInputError
    from launchops.library import profile_of

    try:
        settings = profile_of(name, None, base_url)
    except InvalidInputError as exc:
        if not required:
            return None
        raise _fail(f"{exc}: {'; '.join(f'{f}: {m}' for f, m in exc.problems)}") from None
    if not settings.embedded_sandbox and required:
        raise _fail(f"profile {name} does not run on the sandbox (embedded_sandbox is off)")
    return settings if settings.embedded_sandbox else None


@app.command()
def seed(
    agents: Annotated[int, typer.Option(min=1, max=10_000, help="How many agents to add.")] = 10,
    network: Annotated[
        str, typer.Option(help="solana-mainnet or solana-devnet.")
    ] = "solana-mainnet",
    owner: Annotated[
        str | None, typer.Option(help="Owner of every new agent's asset (base58).")
    ] = None,
    url: SandboxUrl = None,
    profile: ProfileOpt = "sandbox",
    base_url: BaseUrlOpt = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Fill a running sandbox's registry with realistic agents (assets written on chain)."""
    _seed_options(network, owner)
    params = {"agents": agents, "network": network, **({"owner": owner} if owner else {})}
    with _running(url, profile, base_url) as root:
        answer = _admin("POST", root, "/_sandbox/seed", params=params)
    if as_json:
        typer.echo(json.dumps(answer["agents"]))
    else:
        typer.echo(f"added {counted(len(answer['agents']), 'agent')} to the sandbox (as {network})")


def _seed_options(network: str, owner: str | None) -> None:
    """Refuse a network or owner the sandbox would refuse, before one is started."""
    from solders.pubkey import Pubkey

    if network not in ("solana-mainnet", "solana-devnet"):
        raise _fail(f"--network: must be solana-mainnet or solana-devnet, not {network!r}")
    if owner is None:
        return
    try:
        Pubkey.from_string(owner)
    except ValueError:
        raise _fail(f"--owner: must be a base58 public key, not {owner!r}") from None


@app.command()
def faults(
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="NAME=VALUE to change, repeatable.")
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Turn every fault off.")] = False,
    url: SandboxUrl = None,
    profile: ProfileOpt = "sandbox",
    base_url: BaseUrlOpt = None,
) -> None:
    """Show, change or clear a running sandbox's faults."""
    from launchops.sandbox.faults import Faults

    url = _root(url, profile, base_url)
    _admin("GET", url, "/_sandbox/faults", hint="faults live in a running sandbox, so ")
    if clear:
        current = _admin("PUT", url, "/_sandbox/faults", json=Faults().model_dump())
    elif set_:
        wanted = _faults(set_, _admin("GET", url, "/_sandbox/faults"))
        current = _admin("PUT", url, "/_sandbox/faults", json=wanted.model_dump())
    else:
        current = _admin("GET", url, "/_sandbox/faults")
    typer.echo(json.dumps(current, indent=2))


@app.command()
def stats(
    url: SandboxUrl = None,
    profile: ProfileOpt = "sandbox",
    base_url: BaseUrlOpt = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Calls served per RPC method and API endpoint, and what the chain holds."""
    with _running(url, profile, base_url) as root:
        answer = _admin("GET", root, "/_sandbox/stats")
    if as_json:
        typer.echo(json.dumps(answer, indent=2))
        return
    _print_stats(answer)


def _words(name: str) -> str:
    """`mintsOnChain` -> `mints on chain`."""
    return "".join(f" {c.lower()}" if c.isupper() else c for c in name)


def _print_stats(answer: dict[str, Any]) -> None:
    """The stats as a person reads them: calls per endpoint and method (refused ones
    beside), totals and peaks, the chain and the launches; --json has the raw answer."""
    from launchops.cli.tables import Column, Listing, print_listing

    refused = answer.get("refused") or {}
    listing = Listing(
        "sandbox: calls served",
        [Column("what", shrinks=True), Column("calls", right=True), Column("refused", right=True)],
    )
    for area, label in (("api", "API"), ("rpc", "RPC")):
        for name, count in sorted((answer.get(area) or {}).items()):
            listing.add([f"{label}  {name}", count, refused.get(name, "-")])
    for name, count in sorted(refused.items()):
        if name not in (answer.get("api") or {}) and name not in (answer.get("rpc") or {}):
            listing.add([name, 0, count])
    print_listing(listing)
    peak = answer.get("peakPerSecond") or {}
    lines = [
        f"total     {answer.get('apiTotal', 0)} API calls, {answer.get('rpcTotal', 0)} RPC calls;"
        f" at most {peak.get('api', 0)} API and {peak.get('rpc', 0)} RPC calls a second"
    ]
    shown = {"api", "rpc", "refused", "apiTotal", "rpcTotal", "perSecond", "peakPerSecond"}
    for name, value in answer.items():
        if name in shown:
            continue
        if isinstance(value, dict):
            value = ", ".join(f"{_words(k)} {json.dumps(v)}" for k, v in value.items()) or "-"
        lines.append(f"{_words(name):<9} {value}")
    from launchops.cli.common import console

    out = console()
    for line in lines:
        out.print(line, markup=False, soft_wrap=False)
