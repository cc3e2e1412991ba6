"""A real terminal for the live displays: a tmux session of a fixed size, whose whole
screen and scrollback a test reads (capture-pane) as a person would see it."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest


class Terminal:
    def __init__(self, columns: int = 120, rows: int = 40) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed")
        self.name = f"launchops-{uuid.uuid4().hex[:8]}"
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", str(columns), "-y", str(rows)],
            check=True,
        )

    def run(self, command: list[str], env: dict[str, str], script: Path) -> None:
        """Run the command at the shell with `env` exported; it ends by printing EXIT=<code>."""
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
        script.write_text(f"{exports}{shlex.join(command)}\necho EXIT=$?\n")
        subprocess.run(
            [
                "tmux",
                "send-keys",
                "-t",
                self.name,
                f"clear; sh {shlex.quote(str(script))}",
                "Enter",
            ],
            check=True,
        )

    def screen(self, joined: bool = False) -> str:
        """Everything the terminal shows and has scrolled past; `joined`: each line the
        terminal wrapped as one (tmux -J), so it differs only where a line was too wide."""
        return subprocess.run(
            ["tmux", "capture-pane", "-t", self.name, "-p", "-S", "-", *(["-J"] if joined else [])],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def wait_for(self, done: Callable[[str], bool], timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if done(text):
                return text
            assert time.monotonic() < deadline, text[-3000:]
            time.sleep(0.3)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False)
