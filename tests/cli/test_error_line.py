"""The one error line: "error:" styled on a terminal, plain text in a pipe or a log, and the
message printed as text (never read as markup, never the markup itself)."""

from __future__ import annotations

import io
import os
import sys

import pytest
import typer
from rich.console import Console

from launchops.cli import common
from launchops.errors import LaunchOpsError
from tests.support import forks

MESSAGE = "launch [bold]x[/] refused: see [the docs]"


def fail(error: Exception) -> None:
    with pytest.raises(typer.Exit), common.user_errors():
        raise error


def test_not_a_terminal_gets_plain_text(capsys):
    fail(LaunchOpsError(MESSAGE))
    err = capsys.readouterr().err
    assert err == f"error: {MESSAGE}\n"
    assert "\x1b[" not in err


def test_a_terminal_gets_error_styled_and_the_message_as_text(monkeypatch):
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, color_system="standard", width=200)
    monkeypatch.setattr(common, "console", lambda stderr=False: terminal)
    fail(LaunchOpsError(MESSAGE))
    shown = screen.getvalue()
    assert shown.startswith("\x1b[1;31merror:\x1b[0m ")
    assert shown.endswith(f" {MESSAGE}\n")
    assert "[bold red]" not in shown and "[/]" not in shown.replace(MESSAGE, "")


def test_every_error_line_of_the_cli_is_styled_the_same(monkeypatch):
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, color_system="standard", width=200)
    monkeypatch.setattr(common, "console", lambda stderr=False: terminal)
    common.refuse("profile [x] needs --yes")
    assert screen.getvalue() == "\x1b[1;31merror:\x1b[0m profile [x] needs --yes\n"


def test_the_command_line_in_a_pipe(tmp_path):
    """A real `launchops status` for a missing launch, its stderr a pipe: one plain line."""
    env = {"LAUNCHOPS_HOME": str(tmp_path), "LAUNCHOPS_EMBEDDED_SANDBOX": "false"}
    done = forks.run(
        [sys.executable, "-m", "launchops.cli", "status", "nope"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    assert done.returncode == 2  # an unknown key is refused
    assert done.stderr == "error: no launch 'nope' in the journal of profile sandbox\n"
