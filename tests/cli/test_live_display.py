"""The live displays in a real terminal (tmux, 120x40): one board updated in place, then
the result, even while Prefect logs at INFO from this process and from its server."""

from __future__ import annotations

import re
import sys

import pytest

from tests.support.pipeline import profile_env, write_launch
from tests.support.terminal import Terminal

STEP_ROW = re.compile(r"^\s*[·>✓x]\s+(validate|create|sign|submit|confirm|register)\b")


@pytest.fixture
def terminal():
    term = Terminal(120, 40)
    yield term
    term.close()


def test_one_launch_board_updated_in_place_then_the_result(
    sandbox_factory, tmp_path, terminal, prefect_env
):
    sandbox = sandbox_factory(slot_ms=100)
    env = {
        **{k: v for k, v in profile_env(sandbox, tmp_path / "home").items() if "LAUNCHOPS" in k},
        **prefect_env,
        "PREFECT_LOGGING_LEVEL": "INFO",  # log lines while the board is up
    }
    file = write_launch(tmp_path, key="on-screen")
    command = [sys.executable, "-m", "launchops.cli", "launch", str(file)]
    terminal.run(command, env, tmp_path / "run.sh")
    screen = terminal.wait_for(lambda text: "EXIT=" in text)
    assert "EXIT=0" in screen, screen[-3000:]
    lines = screen.splitlines()
    rows = [line for line in lines if STEP_ROW.match(line)]
    assert [STEP_ROW.match(r).group(1) for r in rows] == [
        "validate",
        "create",
        "sign",
        "submit",
        "confirm",
        "register",
    ], screen  # one board, no stale copy
    assert all("✓" in row for row in rows)
    first = lines.index(rows[0])
    assert "sandbox" in lines[first - 1] and "by airdrop" in lines[first - 1]  # inside it
    panel = next(i for i, line in enumerate(lines) if "on-screen: launched" in line)
    assert panel > lines.index(rows[-1])
    assert any("Finished in state Completed" in line for line in lines[:first])  # logs above


def test_the_batch_progress_is_one_display(sandbox_factory, tmp_path, terminal, prefect_env):
    sandbox = sandbox_factory(slot_ms=50)
    env = {
        **{k: v for k, v in profile_env(sandbox, tmp_path / "home").items() if "LAUNCHOPS" in k},
        **prefect_env,
        "PREFECT_LOGGING_LEVEL": "INFO",
    }
    folder = tmp_path / "batch"
    for index in range(4):
        write_launch(folder, f"t-{index}.yaml", key=f"t-{index}", symbol=f"T{index}")
    command = [sys.executable, "-m", "launchops.cli", "batch", str(folder)]
    terminal.run(command, env, tmp_path / "run.sh")
    screen = terminal.wait_for(lambda text: "EXIT=" in text)
    assert "EXIT=0" in screen, screen[-3000:]
    bars = [line for line in screen.splitlines() if re.search(r"\d+/4 launches", line)]
    assert len(bars) == 1 and "4/4 launches" in bars[0], screen


def test_a_note_is_text_whatever_it_quotes():
    """A step's note may quote the service or a file: `[/x]` (rich's markup, which would
    raise mid-launch) and `:rocket:` show as they are, on the board and under the bar."""
    import io

    from rich.console import Console

    from launchops.cli.display import BatchProgress, StepBoard

    quoted = "400 Invalid input data: name: [/x] is not [bold]allowed[/bold] :rocket:"
    board, bar = StepBoard(), BatchProgress(1)
    board.update("k", "create", quoted)
    board.update("k", "sandbox", quoted)
    bar.note("", "rpc", quoted)
    screen = io.StringIO()
    out = Console(file=screen, width=200)  # rich's defaults: markup and emoji names read
    out.print(board._render())
    out.print(bar._render())
    assert screen.getvalue().count(quoted) == 3, screen.getvalue()
