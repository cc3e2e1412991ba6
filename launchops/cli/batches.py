"""`launchops batch` and `launchops registrations retry`: many launches, and mopping up."""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import nullcontext
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.launches import (
    JsonOpt,
    NoPrefect,
    ProfileOpt,
    ProfilesFile,
    Yes,
    _needs_yes,
    _profile,
    _refuse,
    _run,
    embedded_sandbox,
)
from launchops.cli.service import console, short, user_errors

if TYPE_CHECKING:
    from launchops.config.profiles import Profile

registrations_app = typer.Typer(
    rich_markup_mode=None,
    help="Register launches that landed but are not registered.",
    no_args_is_help=True,
)
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")


def install(app: typer.Typer) -> None:
    app.command()(batch)
    app.command()(deploy)
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
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Run many launches concurrently; re-running skips what finished and resumes the rest."""
    from launchops.config.launchfile import launch_files

    with user_errors():
        settings = _profile(profile, profiles)
        if settings.requires_yes and not yes:
            raise _refuse(_needs_yes(profile, settings))
        files = [file for target in targets for file in launch_files(target)]
        missing = [str(f) for f in files if not f.is_file()]
        if missing or not files:
            console(stderr=True).print(
                f"[bold red]error:[/] no launch files: {', '.join(missing) or targets}"
            )
            raise typer.Exit(2)
        board = None if as_json else _Progress(len(files))
        with embedded_sandbox(settings), board.live() if board else nullcontext():
            result = _batch(settings, profile, profiles, files, concurrency, not no_prefect, board)
    _report(result, as_json, "batch")


def _batch(
    settings: Profile,
    profile: str,
    profiles: Path | None,
    files: list[Path],
    concurrency: int | None,
    prefect: bool,
    board: Any,
) -> dict[str, Any]:
    update = board.update if board else (lambda row: None)
    if prefect:
        _quiet_prefect()
        from flows.batch import batch_flow
        from tasks.context import listen_rows

        listen_rows(update)
        return _run(
            batch_flow(
                paths=[str(f) for f in files],
                profile=profile,
                concurrency=concurrency,
                profiles_file=str(profiles) if profiles else None,
            )
        )

    async def plain() -> dict[str, Any]:
        from launchops.pipeline.batch import batch_result, run_batch
        from launchops.pipeline.context import open_context

        async with open_context(settings) as ctx:
            rows = await run_batch(ctx, files, concurrency=concurrency, on_update=update)
        return batch_result(rows, settings.profile_dir / "reports", "batch")

    return _run(plain())


@registrations_app.command("retry")
def registrations_retry(
    older_than: Annotated[
        str, typer.Option("--older-than", help="Only launches idle this long (30s, 10m, 2h).")
    ] = "0s",
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    no_prefect: NoPrefect = False,
    as_json: JsonOpt = False,
) -> None:
    """Register every launch whose transactions landed but which is not registered."""
    idle = parse_duration(older_than)
    with user_errors():
        settings = _profile(profile, profiles)
        with embedded_sandbox(settings):
            if not no_prefect:
                _quiet_prefect()
                from flows.registrations import registrations_flow

                result = _run(
                    registrations_flow(
                        profile=profile,
                        older_than_seconds=idle.total_seconds(),
                        profiles_file=str(profiles) if profiles else None,
                    )
                )
            else:
                result = _run(_plain_retry(settings, idle))
    _report(result, as_json, "registrations")


async def _plain_retry(settings: Profile, idle: timedelta) -> dict[str, Any]:
    from launchops.pipeline.batch import batch_result, retry_registrations
    from launchops.pipeline.context import open_context

    async with open_context(settings) as ctx:
        rows = await retry_registrations(ctx, older_than=idle)
    return batch_result(rows, settings.profile_dir / "reports", "registrations")


def _quiet_prefect() -> None:
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")  # no first-run notice mid-display


def _report(result: dict[str, Any], as_json: bool, what: str) -> None:
    launches = result["launches"]
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        from rich.table import Table

        table = Table(
            title=f"{what}: " + ", ".join(f"{n} {s}" for s, n in result["counts"].items())
        )
        for column in ("key", "state", "launch page", "mint", "error", "file"):
            table.add_column(column, overflow="fold", no_wrap=column == "mint")
        for row in launches:
            error = (row["error"] or "").splitlines()
            brief = (
                (error[0][:90] + (" ..." if len(error) > 1 or len(error[0]) > 90 else ""))
                if error
                else ""
            )
            table.add_row(
                row["key"] or "-",
                row["state"],
                row["launch_page"] or "",
                short(row["mint"]) if row["mint"] else "",
                brief,
                row["file"],
            )
        out = console()
        out.print(table)
        out.print(f"reports: {result['reports']['json']}, {result['reports']['csv']}")
    # A launch another worker holds is its business: not a failure of this one.
    done = (
        ("registered", "elsewhere", "confirmed")
        if what == "funding"
        else ("registered", "elsewhere")
    )
    if any(row["state"] not in done for row in launches):
        raise typer.Exit(1)


class _Progress:
    """A progress bar over the launches, with a live count per state."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.states: dict[str, str] = {}

    def live(self) -> Any:
        from launchops.cli.display import live_display

        return live_display(self._render, refresh_per_second=4)

    def update(self, row: Any) -> None:
        self.states[row.file] = row.state

    def _render(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        done = sum(1 for s in self.states.values() if s not in ("pending", "running"))
        tally: dict[str, int] = {}
        for state in self.states.values():
            tally[state] = tally.get(state, 0) + 1
        grid = Table.grid(padding=(0, 1))
        grid.add_row(
            ProgressBar(total=self.total, completed=done, width=40), f"{done}/{self.total} launches"
        )
        grid.add_row(
            "", "  ".join(f"{state}: {n}" for state, n in sorted(tally.items())) or "validating"
        )
        return grid


def deploy(
    batch: Annotated[
        list[Path] | None,
        typer.Option("--batch", help="A folder or file the scheduled batch runs; repeatable."),
    ] = None,
    batch_cron: Annotated[
        str, typer.Option("--batch-cron", help="When the batch runs (cron, UTC).")
    ] = "0 * * * *",
    retry_cron: Annotated[
        str, typer.Option("--retry-cron", help="When the registration retry runs (cron, UTC).")
    ] = "*/15 * * * *",
    launches: Annotated[
        list[Path] | None,
        typer.Option(
            "--launches", help="Launch files or folders; those with schedule: get a deployment."
        ),
    ] = None,
    pool: Annotated[
        str | None,
        typer.Option("--pool", help="Register on the Prefect server for workers of this pool."),
    ] = None,
    serve: Annotated[
        bool, typer.Option("--serve", help="Serve the deployments from this process until stopped.")
    ] = False,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
) -> None:
    """Apply the schedules: the batch, the registration retry, and scheduled launch files."""
    from launchops.api.errors import LaunchFileError
    from launchops.chain.keys import KeypairError, load_keypair
    from launchops.config.launchfile import launch_files
    from launchops.pipeline.runner import plan_launch

    if serve == bool(pool):
        console(stderr=True).print("[bold red]error:[/] give exactly one of --serve or --pool NAME")
        raise typer.Exit(2)
    with user_errors():
        settings = _profile(profile, profiles)
        try:
            wallet = load_keypair(settings.keypair, state_dir=settings.profile_dir).pubkey()
        except KeypairError:
            wallet = None
        scheduled = []
        for file in (f for target in launches or [] for f in launch_files(target)):
            try:
                plan = plan_launch(settings, wallet, file, check_times=False)
            except LaunchFileError as exc:
                console(stderr=True).print(str(exc), markup=False)
                raise typer.Exit(1) from None
            if plan.schedule:
                scheduled.append((plan.key, file, plan.schedule))
        _quiet_prefect()
        from flows.deployments import build

        deployments = build(
            profile=profile,
            batch_paths=[str(p) for p in batch or []],
            batch_cron=batch_cron if batch else None,
            retry_cron=retry_cron,
            scheduled=scheduled,
            from_source=pool is not None,
        )
        names = [d.name for d in deployments]
        if pool:
            from prefect import deploy as prefect_deploy

            prefect_deploy(
                *deployments,
                work_pool_name=pool,
                build=False,
                push=False,
                print_next_steps_message=False,
            )
            console().print(f"registered on pool {pool}: {', '.join(names)}")
            console().print(f"run workers: prefect worker start --pool {pool}")
            return
        from prefect import serve as prefect_serve

        console().print(f"serving {', '.join(names)} (Ctrl-C to stop)")
        prefect_serve(*deployments)
