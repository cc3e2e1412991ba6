"""`launchops validate | launch | resume | status | schema`: launches from YAML files."""

from __future__ import annotations

import dataclasses
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.command import Call, shared
from launchops.cli.common import (
    REFUSED_EXIT,
    console,
    embedded_sandbox,
    error_line,
    print_json,
    refuse,
    refuse_folder,
    run,
    writable_file,
)
from launchops.cli.status import read_journal, status

if TYPE_CHECKING:
    from solders.pubkey import Pubkey

    from launchops.config.profiles import Profile
    from launchops.library.results import LaunchResult

DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Validate, create, sign, simulate; send nothing.")
]
Replace = Annotated[
    bool, typer.Option("--replace", help="Take a changed file under a key nothing was sent for.")
]
Out = Annotated[Path | None, typer.Option("--out", help="Where to write the result JSON.")]
Now = Annotated[
    bool,
    typer.Option("--now", help="Launch a file whose schedule: is still ahead, now all the same."),
]


def install(app: typer.Typer) -> None:
    for command in (validate, launch, resume, status, schema):
        app.command()(command)


# ── validate ────────────────────────────────────────────────────────────────


@shared()
def validate(
    call: Call,
    targets: Annotated[list[Path], typer.Argument(help="Launch files or folders of them.")],
) -> None:
    """Check launch files against every rule, with no network call."""
    from launchops.config.launchfile import launch_files

    settings = call.settings
    missing = [str(t) for t in targets if not t.exists()]
    if missing:
        raise refuse(f"{', '.join(missing)}: no such launch file or folder")
    files = list(dict.fromkeys(f for target in targets for f in launch_files(target)))
    if not files:
        raise refuse(f"no launch files (*.yaml, *.yml) in {', '.join(map(str, targets))}")
    wallet = _profile_wallet(settings)
    results = [_checked(settings, wallet, path) for path in files]
    bad = [r for r in results if not r["ok"]]
    if call.as_json:
        print_json(results)
    else:
        out, err = console(), console(stderr=True)
        for result in results:
            if result["ok"]:
                out.print("ok", end="", style="green")
                out.print(f"  {result['file']}  (key {result['key']})")
            for p in result["problems"]:
                where = f"{p['file']}:{p['line']}" if p["line"] else p["file"]
                err.print(f"{where}: {p['field']}: {p['message']}", markup=False)
        (err if bad else out).print(f"{len(results) - len(bad)} valid, {len(bad)} invalid")
    if bad:
        raise typer.Exit(1)


def _profile_wallet(settings: Profile) -> Pubkey | None:
    """The profile key's wallet, the default of a file's `wallet:`; None when it cannot be
    read (a file's own wallet is then checked for form only), with a warning saying why,
    unless Prefect reads it (`prefect-secret:`)."""
    from launchops.chain.keys import load_keypair
    from launchops.errors import KeypairError

    try:
        return load_keypair(settings.keypair, state_dir=settings.profile_dir).pubkey()
    except KeypairError as exc:
        if not settings.keypair.startswith("prefect-secret:"):
            console(stderr=True).print(
                f"warning: {exc}; files without wallet: are checked as if no key were known",
                markup=False,
            )
        return None


def _checked(settings: Profile, wallet: Pubkey | None, path: Path) -> dict[str, Any]:
    """One file's verdict: its key, or every problem with file, line and field."""
    from launchops.config.launchfile import plan_launch
    from launchops.errors import LaunchFileError

    try:
        plan = plan_launch(settings, wallet, path, check_times=True)
    except LaunchFileError as exc:
        problems = [vars(p) for p in exc.file_problems]
        return {"file": str(path), "ok": False, "key": None, "problems": problems}
    return {"file": str(path), "ok": True, "key": plan.key, "problems": []}


# ── launch and resume ───────────────────────────────────────────────────────


@shared(sends=True, flow=True)
def launch(
    call: Call,
    file: Annotated[Path, typer.Argument(help="The launch file.", exists=False)],
    dry_run: DryRun = False,
    replace: Replace = False,
    now: Now = False,
    out: Out = None,
) -> None:
    """Run one launch: validate, create, sign, submit, confirm, register (resumable)."""
    refuse_folder(file, "a launch file", f"launchops batch {file} runs a folder of them")
    writable_file(out)
    if not (dry_run or now):  # a file for its deployment: before the profile, the network
        from launchops.config.schedule import refuse_early

        refuse_early(file)
    settings = call.load(sending=False)  # the file first: no network call before it is checked
    if not file.is_file():
        raise refuse(f"{file}: no such launch file")
    if not dry_run:
        call.refuse_sending(guard=False)  # mainnet without --yes: no network call either
    planned = _valid_before_sending(settings, file)
    if not dry_run:
        call.refuse_sending()
    if dry_run:
        with embedded_sandbox(settings):
            from launchops import library

            _print_dry_run(run(library.dry_run(file, profile=settings)), call.as_json)
        return
    known = None if replace or planned is None else _finished(settings, *planned)
    result = known or _launch(call, file, None, replace, now)
    again = f"launchops launch {file}" + (" --now" if now else "")
    _finish(settings, result, out, call.as_json, again)


@shared(sends=True, flow=True)
def resume(
    call: Call,
    key: Annotated[str, typer.Argument(help="The launch's key (see `launchops status`).")],
    out: Out = None,
) -> None:
    """Continue a launch from its journal, at the first unfinished step."""
    writable_file(out)
    settings = call.settings
    if call.prefect and not run(read_journal(settings, key))[0]:  # before Prefect starts
        raise refuse(f"no launch {key!r} in the journal of profile {settings.name}")
    result = _finished(settings, key) or _launch(call, None, key, False)
    _finish(settings, result, out, call.as_json, f"launchops resume {key}")


def _finished(settings: Profile, key: str, config_hash: str | None = None) -> dict | None:
    """The result of launch `key` when the journal holds it finished for good (with
    `config_hash`: from the same file as written now), answered from the journal: no
    flow, no Prefect server, no sandbox to start. None when there is work to do."""
    from launchops.library.results import LaunchResult
    from launchops.pipeline.embedded import sandbox_running
    from launchops.states import done

    [record, *_] = run(read_journal(settings, key))[0] or [None]
    if record is None or not done(record.state, record.kind):
        return None
    if config_hash is not None and record.config_hash != config_hash:
        return None  # an edited file: the run refuses it, saying how to go on
    result = dataclasses.replace(LaunchResult.of(settings, record), from_journal=True).to_json()
    served = result.get("launchPage") and settings.embedded_sandbox
    if served and not sandbox_running(settings.rpc_url, tries=1):  # as a run starting it says
        result["launchPageServedBy"] = f"launchops sandbox serve --profile {settings.name}"
    return result


def _valid_before_sending(settings: Profile, file: Path) -> tuple[str, str] | None:
    """The file's problems as the validate step finds them, said before any network call
    (the network guard's included) and before Prefect starts, through either driver (a
    `prefect-secret:` first buyer is left to the run, which can read it). The launch's
    key and configuration hash when the file plans as it is (None: the run decides)."""
    from launchops.chain.keys import load_keypair
    from launchops.config.launchfile import plan_launch
    from launchops.config.rules import NO_KEY_KNOWN
    from launchops.errors import KeypairError, LaunchFileError

    unreadable = None  # a key that cannot be read: said after the file's own problems
    try:
        wallet = load_keypair(settings.keypair, state_dir=settings.profile_dir).pubkey()
    except KeypairError as exc:
        wallet = None  # the flow reads a prefect-secret: key, and says why it cannot
        unreadable = None if settings.keypair.startswith("prefect-secret:") else exc
    try:
        plan = plan_launch(settings, wallet, file, check_times=True)
    except LaunchFileError as exc:
        problems = [
            p
            for p in exc.file_problems
            if "needs Prefect" not in p.message and not (unreadable and p.message == NO_KEY_KNOWN)
        ]
        if problems:
            raise LaunchFileError(problems) from None
        plan = None
    if unreadable is not None:  # the key's error, not the wallet rule it would trip
        raise unreadable
    return (plan.key, plan.config_hash) if plan is not None else None


def _launch(
    call: Call, file: Path | None, key: str | None, replace: bool, now: bool = False
) -> dict[str, Any]:
    """The launch through its flow or in this process, with the step board on a terminal."""
    from launchops import library
    from launchops.cli.display import StepBoard

    settings = call.settings
    board = None if call.as_json else StepBoard()
    listener = board.update if board else (lambda *_: None)

    def listen() -> None:
        from launchops.tasks.context import listen

        listen(listener)

    async def plain() -> LaunchResult:
        if file is not None:
            return await library.launch(
                file, profile=settings, replace=replace, now=now, progress=listener
            )
        assert key is not None
        return await library.resume(key, profile=settings, progress=listener)

    # The sandbox first: a port taken by something else is one line, before any board.
    with embedded_sandbox(settings, listener) as started, board.live() if board else nullcontext():
        path = str(file) if file else None
        flow = {"path": path, "key": key, "replace": replace, "now": now}
        found = call.drive(
            "launch:launch_flow",
            plain,
            listen=listen,
            sandbox=False,
            progress=listener,
            again_if_lost=True,
            **flow,
        )
        result = found.to_json()
        if board is not None:
            board.finish(result["finished"])
    if started is not None and result.get("launchPage"):
        # The sandbox stops with this command: say how to serve its chain again.
        result["launchPageServedBy"] = f"launchops sandbox serve --profile {settings.name}"
    return result


def _print_dry_run(report: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(report)
        return
    from launchops.cli.panels import print_dry_run

    print_dry_run(report)


def _finish(
    settings: Profile, result: dict[str, Any], out: Path | None, as_json: bool, again: str
) -> None:
    from launchops.cli.panels import explorer_note, live_line, next_step, print_launch

    explorer = result.get("explorer")
    if isinstance(explorer, dict) and not any(explorer.get(k) for k in ("mint", "transactions")):
        explorer.setdefault("note", explorer_note(settings))  # why the links are null
    step = next_step(result, again)
    result["next"] = step[1] if step else None  # the command the panel's `next` gives
    target = out or settings.profile_dir / "results" / f"{result['key']}.json"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(result, indent=2) + "\n")
    except OSError as exc:  # checked before the launch; a full disk, a folder made since
        unwritten = f"{target}: {exc.strerror or exc}"
    else:
        unwritten = None
    if as_json:
        print_json(result)
    else:
        print_launch(result, None if unwritten else target, settings, again)
    live = live_line(result)
    if live:  # the token is live: said in the one line too, whatever else is printed
        error_line(live)
    if unwritten:
        error_line(
            f"the result could not be written to {unwritten} (the journal keeps it: "
            f"launchops status {result['key']} --json)"
        )
    if result["state"] == "refused":
        raise typer.Exit(REFUSED_EXIT)  # nothing signed: its own code, for a person
    if unwritten or not result["finished"]:
        raise typer.Exit(1)


# ── status and schema ───────────────────────────────────────────────────────


def schema(
    out: Annotated[Path | None, typer.Option("--out", help="Write it here, not to stdout.")] = None,
) -> None:
    """The JSON Schema of a launch file (for editors: configs/launch.schema.json)."""
    from launchops.config.launchfile import schema as launch_schema

    writable_file(out, "launch.schema.json")
    text = json.dumps(launch_schema(), indent=2) + "\n"
    if out:
        out.write_text(text)
    else:
        sys.stdout.write(text)
