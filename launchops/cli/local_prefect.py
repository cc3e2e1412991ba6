"""`launchops prefect ...`: the local Prefect server commands share (`kept_server`): where
it serves, since when, when it was last used; and its stop."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from launchops.cli.command import Call, shared

app = typer.Typer(
    rich_markup_mode=None,
    help="The local Prefect server commands share: status, stop.",
    no_args_is_help=True,
)


def _when(stamp: float | None) -> str | None:
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds") if stamp else None


@app.command("status")
@shared()
def status(call: Call) -> None:
    """Whether the profile's local Prefect server runs: its URL, process, start, last use."""
    from launchops.cli.common import console
    from launchops.cli.kept_server import folder_of, found, idle_seconds

    folder = folder_of(call.settings.profile_dir)
    record = found(folder)
    used = folder / "used"
    data = {
        "profile": call.settings.name,
        "running": record is not None,
        "url": record["url"] if record else None,
        "pid": record["pid"] if record else None,
        "startedAt": _when(record["startedAt"]) if record else None,
        "lastUsedAt": _when(used.stat().st_mtime) if record and used.exists() else None,
        "idleSeconds": idle_seconds(),
        "folder": str(folder),
    }

    def printer() -> None:
        out = console()
        if record is None:
            out.print(
                f"no local Prefect server for profile {data['profile']}: the next command "
                "that runs a flow starts one",
                markup=False,
            )
            return
        out.print(
            f"local Prefect server {data['url']} (pid {data['pid']}), started "
            f"{data['startedAt']}, last used {data['lastUsedAt']}; it stops after "
            f"{data['idleSeconds']:g} s unused (launchops prefect stop: now)",
            markup=False,
        )

    call.show(data, printer)


@app.command("stop")
@shared()
def stop(call: Call) -> None:
    """Stop the profile's local Prefect server now (the next flow starts one again)."""
    from launchops.cli.common import console
    from launchops.cli.kept_server import folder_of, stop_kept

    record = stop_kept(folder_of(call.settings.profile_dir))
    data = {"stopped": record is not None, "url": record["url"] if record else None}

    def printer() -> None:
        if record is None:
            console().print("no local Prefect server was running", markup=False)
        else:
            console().print(f"stopped the local Prefect server {record['url']}", markup=False)

    call.show(data, printer)
