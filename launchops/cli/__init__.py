"""The `launchops` command line (typer + rich).

The client, models, solders, Prefect and FastAPI load inside the commands that need them,
so `launchops --help` starts fast.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from launchops.cli import (  # noqa: F401 - transfers and after register commands on agents_app
    after,
    batches,
    check,
    launches,
    local_prefect,
    sandbox,
    schedules,
    service,
    transfers,
)
from launchops.version import __version__

app = typer.Typer(
    rich_markup_mode=None,
    name="launchops",
    help="Token launches on Solana from YAML files, resumable at every step.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(service.agents_app, name="agents")
app.add_typer(service.tokens_app, name="tokens")
app.add_typer(sandbox.app, name="sandbox")
app.add_typer(after.rewards_app, name="rewards")
app.add_typer(after.launches_app, name="launches")
app.add_typer(local_prefect.app, name="prefect")
launches.install(app)
batches.install(app)
schedules.install(app)
check.install(app)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"launchops {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", envvar="LAUNCHOPS_DEBUG", help="Show Prefect's tracebacks of failed runs."
        ),
    ] = False,
) -> None:
    """Token launches on Solana from YAML files, resumable at every step."""
    from launchops.cli.oneline import one_line_warnings

    if debug:
        os.environ["LAUNCHOPS_DEBUG"] = "1"
    one_line_warnings()


def main() -> None:
    app()
