"""What every command shares: its options, the console, one-line errors, the profile and
its mainnet guard, the embedded sandbox, and running work through Prefect or in-process.

Only typer is imported at module level: `launchops --help` stays fast.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from launchops.urls import shown

if TYPE_CHECKING:
    from rich.console import Console

    from launchops.config.profiles import Profile
    from launchops.exposure import Exposure

T = TypeVar("T")

ProfileOpt = Annotated[
    str,
    typer.Option(
        "--profile", "-p", envvar="LAUNCHOPS_PROFILE", help="sandbox, devnet, mainnet, or yours."
    ),
]
ProfilesFile = Annotated[
    Path | None,
    typer.Option("--profiles", help="A profiles YAML (default $LAUNCHOPS_HOME/profiles.yaml)."),
]
BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url", help="The service's base URL, with its /v1 prefix (default: the profile's)."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
Yes = Annotated[bool, typer.Option("--yes", help="Confirm sending real transactions (mainnet).")]
NoPrefect = Annotated[bool, typer.Option("--no-prefect", help="Run in this process, no Prefect.")]
NetworkOpt = Annotated[
    str | None,
    typer.Option("--network", help="solana-mainnet or solana-devnet (default: the profile's)."),
]
InsecureServer = Annotated[
    bool,
    typer.Option(
        "--insecure-server",
        help="Go on although the Prefect API answers anyone from other machines (not advised).",
    ),
]


# ── output ──────────────────────────────────────────────────────────────────


def console(stderr: bool = False) -> Console:
    """The console every command prints with. What it prints is text: names, descriptions
    and errors come from launch files, the service and other people's tokens, so neither
    `[...]` (rich's markup: `[/x]` would raise) nor `:name:` (an emoji's) is read in it;
    style goes in `style=` or a `Text`."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True, markup=False, emoji=False)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def short(address: Any) -> str:
    """A base58 address as tables show it (`HrpvHK…N1j2DS`); --json keeps it whole."""
    text = str(address) if address else ""
    return f"{text[:6]}…{text[-6:]}" if len(text) > 16 else text or "-"


def counted(number: int, noun: str) -> str:
    """`1 launch`, `3 launches`: a count and its noun (plural by `s` or `es`)."""
    if number == 1:
        return f"{number} {noun}"
    return f"{number} {noun}{'es' if noun.endswith(('s', 'sh', 'ch', 'x')) else 's'}"


def error_line(message: str) -> Console:
    """`error: MESSAGE` on stderr: "error:" in bold red on a terminal, plain text in a pipe
    or a log. The message is text, never markup (an error may quote `[...]`). Returns the
    console, for the lines that follow."""
    from rich.text import Text

    err = console(stderr=True)
    err.print(Text.assemble(("error:", "bold red"), " ", message))
    return err


# A launch whose service answer asked the creator to sign what its file does not: nothing
# signed, its own exit code (docs/running.md), for a person to look.
REFUSED_EXIT = 3


def refuse(message: str) -> typer.Exit:
    """A command refused before anything was done: one line, exit 2."""
    error_line(message)
    return typer.Exit(2)


def refuse_folder(path: Path, what: str, instead: str) -> None:
    """Refuse a folder given where a file is wanted (exit 2), saying what to give instead."""
    if path.is_dir():
        raise refuse(f"{path} is a folder, not {what}; {instead}")


def writable_file(path: Path | None, example: str = "result.json", option: str = "--out") -> None:
    """Refuse (exit 2), before anything runs, an output path that cannot be written: a
    folder, or one whose folder cannot be made or written to."""
    if path is None:
        return
    if path.is_dir():
        raise refuse(f"{option} {path} is a folder; give a file path, such as {path / example}")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise refuse(f"{option} {path}: its folder cannot be made: {exc.strerror or exc}") from None
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise refuse(f"{option} {path}: not writable")


@contextmanager
def user_errors(base_url: str | Callable[[], str | None] | None = None) -> Iterator[None]:
    """Turn launchops' errors into one clear line and exit code 1, never a traceback
    (`base_url`, or what it answers when asked: the service, for a hint when unreachable).
    """
    from launchops.errors import (
        ConfigChanged,
        InvalidInputError,
        KeypairError,
        LaunchFileError,
        LaunchOpsError,
        NetworkError,
        ScheduledLater,
        WrongCluster,
    )
    from launchops.library.launches import UnknownLaunch

    try:
        yield
    except (WrongCluster, UnknownLaunch, ScheduledLater, ConfigChanged) as exc:  # refused: exit 2
        raise refuse(str(exc)) from None
    except LaunchFileError as exc:  # a file's problems: one line each, file, line, field, rule
        for problem in exc.file_problems:
            error_line(str(problem))
        raise typer.Exit(1) from None
    except InvalidInputError as exc:  # refused: nothing sent, exit 2
        err = error_line("invalid input")
        for field, message in exc.problems or [("", str(exc))]:
            err.print(f"  {field}: {message}" if field else f"  {message}", markup=False)
        raise typer.Exit(2) from None
    except KeypairError as exc:  # refused: nothing signed or sent, exit 2
        raise refuse(str(exc)) from None
    except NetworkError as exc:
        err = error_line(f"cannot reach the service: {exc}")
        url = base_url() if callable(base_url) else base_url
        if url and url.startswith(("http://127.0.0.1", "http://localhost")):
            hint = "  hint: is the sandbox running? Start it with `launchops sandbox serve`."
            err.print(hint, markup=False)
        raise typer.Exit(1) from None
    except LaunchOpsError as exc:
        error_line(str(exc))
        raise typer.Exit(1) from None


# ── the profile ─────────────────────────────────────────────────────────────


def settings_for(
    profile: str,
    profiles: Path | None,
    base_url: str | None = None,
    *,
    sending: bool = False,
    yes: bool = False,
) -> Profile:
    """The profile, with `--base-url` over it; a command that sends on a profile that asks
    for `--yes` (mainnet) is refused without it, and on a public-service profile whose RPC
    serves another cluster than its network (the network guard, asked here before any flow
    or display starts; `open_context` holds it again for runs that start elsewhere)."""
    from launchops.library.launches import profile_of

    settings = profile_of(profile, profiles, base_url)
    if sending:
        refuse_sending(settings, yes=yes)
    return settings


def refuse_sending(settings: Profile, *, yes: bool, guard: bool = True) -> None:
    """What a run that sends is refused for: no `--yes` where the profile asks for it, and
    with `guard`, an RPC on another cluster than a public profile's network (the network
    guard, a network call)."""
    if settings.requires_yes and not yes:
        raise refuse(
            f"profile {settings.name} sends real transactions on {settings.network}; add --yes"
        )
    if guard and settings.service == "public":
        run(_guard(settings))


async def _guard(settings: Profile) -> None:
    from launchops.chain.rpc import ChainRpc
    from launchops.config.clusters import guard_network

    rpc = ChainRpc(settings.rpc_url, timeout=settings.timeout_seconds)
    try:
        await guard_network(rpc, settings)
    finally:
        await rpc.close()


def prefect_api_url() -> str | None:
    """The Prefect API this process's clients use: PREFECT_API_URL, else Prefect's own
    settings (its profile file), else None (a temporary server on this machine)."""
    if "PREFECT_API_URL" in os.environ:
        return os.environ["PREFECT_API_URL"] or None
    try:
        from prefect.settings import get_current_settings
    except ImportError:
        return None
    return get_current_settings().api.url


def secret_block(name: str) -> str:
    """The value of the Prefect Secret block `name` (a `prefect-secret:` key), or a
    KeypairError in one line: how to make the block, or why the Prefect API did not give
    it (the exception's name only: its text may hold the key)."""
    from launchops.errors import KeypairError
    from launchops.tasks.secrets import secret_keypair

    quiet_prefect()
    where = prefect_api_url() or "(a temporary server)"
    try:
        return secret_keypair(name)
    except ValueError:
        raise KeypairError(
            f"keypair prefect-secret:{name}: no Secret block {name!r} on the Prefect API "
            f"{where}; create it (README, Running on several machines, step 2) or set "
            "LAUNCHOPS_KEYPAIR to another source"
        ) from None
    except Exception as exc:  # unreachable, refused, an answer that is not a block
        raise KeypairError(
            f"keypair prefect-secret:{name}: the Prefect API {where} did not give the Secret "
            f"block ({type(exc).__name__})"
        ) from None


def exposed_by(settings: Profile, *, deploying: bool) -> str | None:
    """What an open Prefect server would give away for this profile: its key when Prefect
    holds it, and (for deploy) a public profile's deployments; None: nothing of that."""
    exposed = []
    if settings.keypair.startswith("prefect-secret:"):
        exposed.append(f"the key in Secret block {settings.keypair.partition(':')[2]!r}")
    if deploying and settings.service == "public":
        exposed.append(f"profile {settings.name}'s deployments ({settings.network})")
    return " and ".join(exposed) or None


def guard_prefect_api(exposed: str | None, insecure: bool) -> Exposure:
    """Refuse (one line, exit 2) to put `exposed` behind a Prefect API that answers
    anonymous requests on an address other than loopback; `--insecure-server` goes on
    after a loud warning. Returns what was found (`launchops check` shows it)."""
    from launchops.exposure import override_warning, probe, refusal

    exposure = probe(prefect_api_url())
    if exposed and exposure.open:
        err = console(stderr=True)
        if not insecure:
            err.print("error: ", end="", style="bold red")
            err.print(refusal(exposure, exposed))
            raise typer.Exit(2)
        err.print(override_warning(exposure, exposed), style="bold red")
    return exposure


@contextmanager
def embedded_sandbox(settings: Profile, progress: Any = None) -> Iterator[Any]:
    """The sandbox profile's sandbox, when none runs, for as long as the command: started
    here, before any flow or display, so a port taken by something else is one clear line.
    Yields the sandbox it started, or None."""
    from launchops.pipeline.embedded import start_embedded_sandbox

    started = start_embedded_sandbox(settings, progress or (lambda *_: None))
    try:
        yield started
    finally:
        if started is not None:
            started.stop()


# ── running the work ────────────────────────────────────────────────────────


# A Prefect server for launchops: the task-run recorder and the event persister write in
# batches of 200 every second instead of one transaction an event (server CPU 3-4x less;
# a state shows in the UI up to a second later). The temporary server takes them from
# here; README gives them for `prefect server start`.
PREFECT_SERVER_SETTINGS = {
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "200",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE": "200",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_FLUSH_INTERVAL": "1",
}


def quiet_prefect() -> None:
    """Prefect as a command's engine: its warnings only, no telemetry notice mid-display,
    and a temporary server (when one is started) with launchops' server settings."""
    for name, value in PREFECT_SERVER_SETTINGS.items():
        os.environ.setdefault(name, value)
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    if os.environ["PREFECT_LOGGING_LEVEL"].upper() == "WARNING":
        # Prefect's background services log under their class names, outside the level
        # above: "EventsWorker - Still processing items" after a command's last flow.
        for name in ("EventsWorker", "APILogWorker"):
            logging.getLogger(name).setLevel(logging.ERROR)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    # The temporary server's first start, migrations included, takes longer than Prefect's
    # 20 s on a busy two-core machine.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


def drive(
    *,
    prefect: bool,
    flow: Callable[[], Awaitable[T]],
    plain: Callable[[], Awaitable[T]],
    progress: Callable[[str, str, str], None] | None = None,
    folder: Path | None = None,
) -> T:
    """Run the command's work through its Prefect flow, or in this process (`--no-prefect`);
    `flow` imports the flow when called, so a plain run never loads Prefect. With no
    Prefect API configured, the local server kept in the profile's `folder`, found or
    started (said on `progress` while it starts; `launchops.cli.kept_server`)."""
    if prefect:
        quiet_prefect()
        from launchops.cli.oneline import prefect_logging_ready, prefect_loop_ready
        from launchops.cli.prefect_server import temporary_prefect

        configured = prefect_api_url()
        if configured:
            prefect_answers(configured)
        with temporary_prefect(configured, progress, folder):
            prefect_logging_ready()  # a failed run is the command's one error line
            prefect_loop_ready()
            return asyncio.run(_awaited(flow))
    return asyncio.run(_awaited(plain))


DRIVE_INSTEAD = (
    "start it, or unset PREFECT_API_URL for a temporary server of this command's own, or run "
    "with --no-prefect"
)


def prefect_answers(url: str, instead: str = DRIVE_INSTEAD) -> None:
    """PrefectUnavailable (one line, ending in `instead`: what to do) when the configured
    Prefect API does not answer its health check, asked with Prefect's own client (its TLS
    and auth settings)."""
    from prefect.client.orchestration import get_client

    from launchops.errors import PrefectUnavailable

    with get_client(sync_client=True) as client:
        failed = client.api_healthcheck()
    if failed is not None:  # the exception's name only: its text may quote a credential
        raise PrefectUnavailable(
            f"the Prefect API {shown(url)} (PREFECT_API_URL) does not answer "
            f"({type(failed).__name__}): {instead}"
        )


async def _awaited(work: Callable[[], Awaitable[T]]) -> T:
    return await work()


def run(coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    return asyncio.run(main())


__all__ = [
    "PREFECT_SERVER_SETTINGS",
    "BaseUrlOpt",
    "InsecureServer",
    "JsonOpt",
    "NetworkOpt",
    "NoPrefect",
    "ProfileOpt",
    "ProfilesFile",
    "Yes",
    "console",
    "drive",
    "embedded_sandbox",
    "error_line",
    "exposed_by",
    "guard_prefect_api",
    "prefect_api_url",
    "print_json",
    "quiet_prefect",
    "refuse",
    "run",
    "secret_block",
    "settings_for",
    "short",
    "user_errors",
]
