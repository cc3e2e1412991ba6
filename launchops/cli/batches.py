"""`launchops batch` and `launchops registrations retry`: many launches, and mopping up."""

from __future__ import annotations

import re
from datetime import timedelta
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
    drive,
    embedded_sandbox,
    refuse,
    settings_for,
    user_errors,
)
from launchops.cli.display import BatchProgress
from launchops.cli.tables import print_batch

if TYPE_CHECKING:
    from launchops.results import BatchResult

registrations_app = typer.Typer(
    rich_markup_mode=None,
    help="Register launches that landed but are not registered.",
    no_args_is_help=True,
)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")


def install(app: typer.Typer) -> None:
    app.command()(batch)
    app.add_typer(registrations_app, name="registrations")


def parse_duration(text: str) -> timedelta:
    match = _DURATION.match(text)
    if not match:
        raise typer.BadParameter(f"{text!r}: use a number with s, m, h or d, e.g. 10m")
    value, unit = float(match.group(1)), match.group(2) or "s"
    return timedelta(seconds=value * {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit])


def batch(
    targets: Annotated[list[Path], typer.Argument(help="Launch files or folders of them.")],
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, max=256, help="Launches in flight (default: the profile's)."),
    ] = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Run many launches concurrently; re-running skips what finished and resumes the rest."""
    from launchops.config.launchfile import launch_files

    with user_errors():
        settings = settings_for(profile, profiles, base_url, sending=True, yes=yes)
        files = [file for target in targets for file in launch_files(target)]
        missing = [str(f) for f in files if not f.is_file()]
        if missing or not files:
            raise refuse(f"no launch files: {', '.join(missing) or targets}")
        board = None if as_json else BatchProgress(len(files))
        update = board.update if board else (lambda row: None)

        async def flow() -> BatchResult:
            from launchops.flows.batch import batch_flow
            from launchops.flows.outcome import result_of
            from launchops.tasks.context import listen_rows

            listen_rows(update)
            paths = [str(f) for f in files]
            where = str(profiles) if profiles else None
            state = await batch_flow(
                paths, settings.name, concurrency, profiles_file=where, return_state=True
            )
            return await result_of(state)

        async def plain() -> BatchResult:
            from launchops import library

            return await library.batch(
                files, profile=settings, concurrency=concurrency, on_update=update
            )

        with embedded_sandbox(settings), board.live() if board else _nothing():
            result = drive(prefect=not no_prefect, flow=flow, plain=plain)
    print_batch(result.to_json(), as_json, "batch")


@registrations_app.command("retry")
def registrations_retry(
    older_than: Annotated[
        str, typer.Option("--older-than", help="Only launches idle this long (30s, 10m, 2h).")
    ] = "0s",
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    base_url: BaseUrlOpt = None,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Register every launch whose transactions landed but which is not registered."""
    idle = parse_duration(older_than)
    with user_errors():
        settings = settings_for(profile, profiles, base_url)

        async def flow() -> BatchResult:
            from launchops.flows.outcome import result_of
            from launchops.flows.registrations import registrations_flow

            where = str(profiles) if profiles else None
            state = await registrations_flow(
                settings.name, idle.total_seconds(), profiles_file=where, return_state=True
            )
            return await result_of(state)

        async def plain() -> BatchResult:
            from launchops import library

            return await library.retry_registrations(profile=settings, older_than=idle)

        with embedded_sandbox(settings):
            result = drive(prefect=not no_prefect, flow=flow, plain=plain)
    print_batch(result.to_json(), as_json, "registrations")


def _nothing() -> Any:
    from contextlib import nullcontext

    return nullcontext()
