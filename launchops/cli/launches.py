"""`launchops validate | launch | resume | status | schema`: launches from YAML files."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.service import console, short, user_errors

if TYPE_CHECKING:
    from launchops.config.profiles import Profile

STEP_NAMES = ("validate", "create", "sign", "submit", "confirm", "register")

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
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Validate, create, sign, simulate; send nothing.")
]
Yes = Annotated[bool, typer.Option("--yes", help="Confirm sending real transactions (mainnet).")]
NoPrefect = Annotated[bool, typer.Option("--no-prefect", help="Run in this process, no Prefect.")]
Replace = Annotated[
    bool, typer.Option("--replace", help="Take a changed file under a key nothing was sent for.")
]
Out = Annotated[Path | None, typer.Option("--out", help="Where to write the result JSON.")]


def install(app: typer.Typer) -> None:
    for command in (validate, launch, resume, status, schema):
        app.command()(command)


def _profile(name: str, profiles_file: Path | None) -> Profile:
    from launchops.config.profiles import load_profile

    return load_profile(name, profiles_file=profiles_file)


# ── validate ────────────────────────────────────────────────────────────────


def validate(
    target: Annotated[Path, typer.Argument(help="A launch file, or a folder of them.")],
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    as_json: JsonOpt = False,
) -> None:
    """Check launch files against every rule, with no network call."""
    from datetime import UTC, datetime

    from launchops.api.errors import LaunchFileError
    from launchops.chain.keys import KeypairError, load_keypair
    from launchops.config.launchfile import launch_files, load_launch_file

    with user_errors():
        settings = _profile(profile, profiles)
        try:
            wallet = load_keypair(settings.keypair, state_dir=settings.profile_dir).pubkey()
        except KeypairError:
            wallet = None  # the file's own wallet: is checked for form only
        files = launch_files(target)
        if not files:
            raise typer.BadParameter(f"no launch files (*.yaml, *.yml) in {target}")
    results = []
    for path in files:
        try:
            plan = load_launch_file(
                path,
                wallet=wallet,
                network=settings.network,
                pinned_network=not settings.embedded_sandbox,
                now=datetime.now(UTC),
            )
            results.append({"file": str(path), "ok": True, "key": plan.key, "problems": []})
        except LaunchFileError as exc:
            problems = [vars(p) for p in exc.file_problems]
            results.append({"file": str(path), "ok": False, "key": None, "problems": problems})
    bad = [r for r in results if not r["ok"]]
    if as_json:
        sys.stdout.write(json.dumps(results, indent=2) + "\n")
    else:
        out, err = console(), console(stderr=True)
        for result in results:
            if result["ok"]:
                out.print(f"[green]ok[/]  {result['file']}  (key {result['key']})")
            for p in result["problems"]:
                where = f"{p['file']}:{p['line']}" if p["line"] else p["file"]
                err.print(f"{where}: {p['field']}: {p['message']}", markup=False, soft_wrap=True)
        summary = f"{len(results) - len(bad)} valid, {len(bad)} invalid"
        (err if bad else out).print(summary)
    if bad:
        raise typer.Exit(1)


# ── launch and resume ───────────────────────────────────────────────────────


def launch(
    file: Annotated[Path, typer.Argument(help="The launch file.", exists=False)],
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    dry_run: DryRun = False,
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    replace: Replace = False,
    out: Out = None,
    as_json: JsonOpt = False,
) -> None:
    """Run one launch: validate, create, sign, submit, confirm, register (resumable)."""
    with user_errors():
        settings = _profile(profile, profiles)
        if settings.requires_yes and not yes and not dry_run:
            raise _refuse(
                f"profile {profile} sends real transactions on {settings.network}; add --yes"
            )
        if not file.is_file():
            raise _refuse(f"{file}: no such launch file")
        if dry_run:
            report = _run(_dry_run(settings, file))
            _print_dry_run(report, as_json)
            return
        result = _launch(
            settings,
            profile,
            profiles,
            file=file,
            key=None,
            replace=replace,
            prefect=not no_prefect,
            live=not as_json,
        )
    _finish(settings, result, out, as_json)


def resume(
    key: Annotated[str, typer.Argument(help="The launch's key (see `launchops status`).")],
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    yes: Yes = False,
    no_prefect: NoPrefect = False,
    out: Out = None,
    as_json: JsonOpt = False,
) -> None:
    """Continue a launch from its journal, at the first unfinished step."""
    with user_errors():
        settings = _profile(profile, profiles)
        if settings.requires_yes and not yes:
            raise _refuse(
                f"profile {profile} sends real transactions on {settings.network}; add --yes"
            )
        result = _launch(
            settings,
            profile,
            profiles,
            file=None,
            key=key,
            replace=False,
            prefect=not no_prefect,
            live=not as_json,
        )
    _finish(settings, result, out, as_json)


@contextmanager
def embedded_sandbox(settings: Profile, progress: Any = None) -> Iterator[Any]:
    """The sandbox profile's sandbox, when none runs, for as long as the command: started
    here, before any flow or display, so a port taken by something else is one clear line."""
    from launchops.pipeline.context import start_embedded_sandbox

    started = start_embedded_sandbox(settings, progress or (lambda *_: None))
    try:
        yield started
    finally:
        if started is not None:
            started.stop()


def _needs_yes(profile: str, settings: Profile) -> str:
    return f"profile {profile} sends real transactions on {settings.network}; add --yes"


def _refuse(message: str) -> typer.Exit:
    console(stderr=True).print(f"[bold red]error:[/] {message}")
    return typer.Exit(2)


def _run(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(coroutine)


def _launch(
    settings: Profile,
    profile: str,
    profiles: Path | None,
    *,
    file: Path | None,
    key: str | None,
    replace: bool,
    prefect: bool,
    live: bool,
) -> dict[str, Any]:
    board = _Board() if live else None
    listener = board.update if board else (lambda *_: None)
    # The sandbox first: a port taken by something else is one line, before any board.
    with embedded_sandbox(settings, listener) as started, board.live() if board else nullcontext():
        if prefect:
            os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
            os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
            os.environ.setdefault("DO_NOT_TRACK", "1")  # no first-run notice mid-display
            from flows.launch import launch_flow
            from tasks.context import listen

            listen(listener)
            flow_run = launch_flow(
                path=str(file) if file else None,
                key=key,
                profile=profile,
                replace=replace,
                profiles_file=str(profiles) if profiles else None,
            )
            result: dict[str, Any] = _run(flow_run)
        else:
            result = _run(_plain(settings, file, key, replace, listener))
        if board is not None:
            board.finish(result["state"])
    if started is not None and result.get("launchPage"):
        # The sandbox stops with this command: say how to serve its chain again.
        result["launchPageServedBy"] = f"launchops sandbox serve --profile {settings.name}"
    return result


async def _plain(
    settings: Profile, file: Path | None, key: str | None, replace: bool, listener: Any
) -> dict[str, Any]:
    from launchops.pipeline.context import open_context
    from launchops.pipeline.runner import run_launch, summary, validate

    async with open_context(settings, progress=listener) as ctx:
        if file is not None:
            key = (await validate(ctx, file, replace=replace)).key
        assert key is not None
        if await ctx.journal.get(key) is None:
            raise _refuse(f"no launch {key!r} in the journal of profile {settings.name}")
        return summary(settings, await run_launch(ctx, key))


async def _dry_run(settings: Profile, file: Path) -> dict[str, Any]:
    from launchops.pipeline.context import open_context
    from launchops.pipeline.runner import dry_run

    async with open_context(settings) as ctx:
        return await dry_run(ctx, file)


def _print_dry_run(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return
    out = console()
    accounts = f"mint {report['mint']}, genesis {report['genesisAccount']}"
    out.print(f"dry run of [bold]{report['key']}[/]: {accounts}")
    for sim in report["simulations"]:
        verdict = "[green]would succeed[/]" if sim["err"] is None else f"[yellow]{sim['err']}[/]"
        out.print(f"  transaction {sim['transaction']}: {verdict}")
    out.print(f"[dim]{report['note']}; nothing was sent or recorded[/]")


def _finish(settings: Profile, result: dict[str, Any], out: Path | None, as_json: bool) -> None:
    target = out or settings.profile_dir / "results" / f"{result['key']}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result, indent=2) + "\n")
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        _print_result(result, target)
    if result["state"] != "registered":
        raise typer.Exit(1)


def _print_result(result: dict[str, Any], written: Path) -> None:
    from rich.panel import Panel

    ok = result["state"] == "registered"
    lines = [f"state       {result['state']}"]
    for label, name in (
        ("launch page", "launchPage"),
        ("mint", "mint"),
        ("genesis", "genesisAccount"),
    ):
        if result.get(name):
            lines.append(f"{label:<11} {result[name]}")
        if name == "launchPage" and result.get("launchPageServedBy"):
            lines.append(f"            (open while `{result['launchPageServedBy']}` runs)")
    explorer = result.get("explorer") or {}
    if explorer.get("mint"):
        lines.append(f"explorer    {explorer['mint']}")
    for link in explorer.get("transactions") or []:
        lines.append(f"            {link}")
    if result.get("error"):
        lines.append(f"error       {result['error']}")
    for detail in result.get("errorDetails") or []:
        lines.append(f"            {json.dumps(detail)}")
    lines.append(f"result      {written}")
    title = f"{result['key']}: launched" if ok else f"{result['key']}: {result['state']}"
    console().print(
        Panel("\n".join(lines), title=title, border_style="green" if ok else "red", expand=False)
    )


class _Board:
    """The six steps of a launch, driven by the pipeline's progress messages; what the
    sandbox did (started, funded the key) shows as a row above them."""

    def __init__(self) -> None:
        self.status = dict.fromkeys(STEP_NAMES, "waiting")
        self.notes = dict.fromkeys(STEP_NAMES, "")
        self.note = ""
        self._live: Any = None

    @contextmanager
    def live(self) -> Iterator[None]:
        from launchops.cli.display import live_display

        with live_display(self._render) as self._live:
            yield
        self._live = None

    def update(self, key: str, step: str, message: str) -> None:
        if step in self.status:
            index = STEP_NAMES.index(step)
            for earlier in STEP_NAMES[:index]:
                self.status[earlier] = "done"
            self.status[step] = "running"
            self.notes[step] = message
        else:
            self.note = message
        if self._live is not None:
            self._live.refresh()

    def finish(self, state: str) -> None:
        for step in STEP_NAMES:
            if state == "registered":
                self.status[step] = "done"
            elif self.status[step] == "running":
                self.status[step] = "failed"
        if self._live is not None:
            self._live.refresh()

    def _render(self) -> Any:
        from rich.table import Table

        table = Table(show_header=False, box=None)
        marks = {
            "waiting": "[dim]·[/]",
            "running": "[yellow]>[/]",
            "done": "[green]✓[/]",
            "failed": "[red]x[/]",
        }
        if self.note:
            table.add_row("[dim]-[/]", "sandbox", self.note)
        for step in STEP_NAMES:
            table.add_row(marks[self.status[step]], step, self.notes[step])
        return table


# ── status and schema ───────────────────────────────────────────────────────


def status(
    key: Annotated[str | None, typer.Argument(help="One launch's key; all when left out.")] = None,
    profile: ProfileOpt = "sandbox",
    profiles: ProfilesFile = None,
    as_json: JsonOpt = False,
) -> None:
    """The journal: every launch's state, or one launch in detail with its events."""
    from launchops.journal.store import Journal

    async def read() -> tuple[list[Any], list[Any]]:
        journal = await Journal.open(settings.journal)
        try:
            if key is None:
                return await journal.all(), []
            record = await journal.get(key)
            return ([record] if record else []), (await journal.events(key) if record else [])
        finally:
            await journal.close()

    with user_errors():
        settings = _profile(profile, profiles)
        records, events = _run(read())
    if key is not None and not records:
        console(stderr=True).print(
            f"[bold red]error:[/] no launch {key!r} in the journal of profile {profile}"
        )
        raise typer.Exit(1)
    if as_json:
        data: Any = [r.as_dict() for r in records]
        if key is not None:
            data = {
                **data[0],
                "events": [{"at": at.isoformat(), "step": s, "message": m} for at, s, m in events],
            }
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    from rich.table import Table

    table = Table(title=f"launches · profile {profile}")
    for column in ("key", "state", "attempts", "mint", "launch page / error", "updated"):
        table.add_column(column, overflow="fold", no_wrap=column == "mint")
    for r in records:
        page = (r.result or {}).get("launch", {}).get("link") or r.last_error or ""
        table.add_row(
            r.key,
            r.state,
            str(r.attempt),
            short(r.mint),
            page,
            r.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
        )
    console().print(table)
    for at, step, message in events:
        console().print(f"  {at:%H:%M:%S} {step:<9} {message}", markup=False)


def schema(
    out: Annotated[Path | None, typer.Option("--out", help="Write it here, not to stdout.")] = None,
) -> None:
    """The JSON Schema of a launch file (for editors: configs/launch.schema.json)."""
    from launchops.config.launchfile import schema as launch_schema

    text = json.dumps(launch_schema(), indent=2) + "\n"
    if out:
        out.write_text(text)
    else:
        sys.stdout.write(text)
