"""`launchops batch` and `launchops registrations retry`: many launches, and mopping up."""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from launchops.cli.command import Call, shared
from launchops.cli.common import refuse, run
from launchops.cli.display import BatchProgress
from launchops.cli.tables import print_batch

if TYPE_CHECKING:
    from launchops.config.profiles import Profile
    from launchops.library.results import BatchResult

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


@shared(sends=True, flow=True)
def batch(
    call: Call,
    targets: Annotated[list[Path], typer.Argument(help="Launch files or folders of them.")],
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, max=256, help="Launches in flight (default: the profile's)."),
    ] = None,
) -> None:
    """Run many launches concurrently; re-running skips what finished and resumes the rest."""
    from launchops import library
    from launchops.config.launchfile import launch_files

    call.load()
    missing = [str(t) for t in targets if not os.path.lexists(t)]
    if missing:
        raise refuse(f"no such launch file or folder: {', '.join(missing)}")
    files = [file for target in targets for file in launch_files(target)]
    if not files:
        shown = ", ".join(str(t) for t in targets)
        raise refuse(f"no launch files (*.yaml, *.yml) in {shown}")
    board = None if call.as_json else BatchProgress(len(files))
    update = board.update if board else (lambda row: None)
    note = board.note if board else (lambda key, step, message: None)

    def listen() -> None:
        from launchops.tasks.context import listen, listen_rows

        listen_rows(update)
        listen(note)

    async def plain() -> BatchResult:
        return await library.batch(
            files, profile=call.settings, concurrency=concurrency, on_update=update, progress=note
        )

    paths = [str(f) for f in files]
    live = board.live() if board else None
    result = call.drive(
        "batch:batch_flow",
        plain,
        listen=listen,
        live=live,
        progress=note,
        paths=paths,
        concurrency=concurrency,
    )
    print_batch(result.to_json(), call.as_json, "batch")


@registrations_app.command("retry")
@shared(flow=True)
def registrations_retry(
    call: Call,
    older_than: Annotated[
        str, typer.Option("--older-than", help="Only launches idle this long (30s, 10m, 2h).")
    ] = "0s",
) -> None:
    """Register every launch whose transactions landed but which is not registered."""
    from launchops import library

    idle = parse_duration(older_than)

    async def plain() -> BatchResult:
        return await library.retry_registrations(profile=call.settings, older_than=idle)

    seconds = idle.total_seconds()
    if call.prefect and not run(_registrable(call.settings)):  # nothing to retry: no flow
        result = call.run(plain)
    else:
        result = call.drive("registrations:registrations_flow", plain, older_than_seconds=seconds)
    print_batch(result.to_json(), call.as_json, "registrations")


async def _registrable(settings: Profile) -> bool:
    """Whether the journal holds work for the registration retry: a launch that landed
    and is not registered, or an alert not yet delivered to Prefect (the retry's flow
    sends them). Without either, the retry answers at once, with no Prefect server."""
    from launchops.journal.outbox import undelivered
    from launchops.journal.store import Journal
    from launchops.states import REGISTRABLE, Kind

    journal = await Journal.open(settings.journal)
    try:
        if await journal.all(kind=Kind.LAUNCH, states=sorted(REGISTRABLE)):
            return True
        return bool(await undelivered(journal, limit=1))
    finally:
        await journal.close()
