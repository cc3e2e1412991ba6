"""What the commands show while they work: one live display on the terminal, updated in
place (the step board of a launch, the progress of a batch), with every other line
printed above it.

A live display redraws itself by moving the cursor up its own height, so a line written
behind its back (a log handler holding the terminal's stream, the Prefect server started
as a subprocess) leaves stale copies of it on the screen. While the display is up, this
process's standard output and error (file descriptors 1 and 2, which subprocesses
inherit) go to a pipe, and each line read from it is printed above the display.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def live_display(render: Callable[[], Any], *, refresh_per_second: float = 8) -> Iterator[Any]:
    """A rich Live of `render()` on stderr while the block runs; a plain final render when
    stderr is not a terminal. Yields the Live (call `refresh()` after a change)."""
    from rich.console import Console
    from rich.live import Live

    if not sys.stderr.isatty():
        console = Console(stderr=True, highlight=False, soft_wrap=True)
        live = Live(render(), console=console, auto_refresh=False, get_renderable=render)
        with live:
            yield live
        return
    with _lines_above() as (terminal, lines):
        console = Console(file=terminal, highlight=False, soft_wrap=True)
        live = Live(
            console=console,
            get_renderable=render,
            refresh_per_second=refresh_per_second,
            redirect_stdout=False,  # descriptors 1 and 2 are captured below rich
            redirect_stderr=False,
        )
        with live:
            lines.printer = lambda text: live.console.print(
                text, markup=False, highlight=False, end=""
            )
            yield live
            lines.printer = None


class _Lines:
    """Lines read from the captured descriptors, printed above the display while it is up,
    straight to the terminal after (a subprocess may outlive the display)."""

    def __init__(self, read_fd: int, terminal: Any) -> None:
        self.printer: Callable[[str], None] | None = None
        self._read_fd = read_fd
        self._terminal = terminal
        self._thread = threading.Thread(target=self._pump, name="launchops-lines", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        with os.fdopen(self._read_fd, "r", errors="replace", closefd=True) as lines:
            for line in lines:
                printer = self.printer
                if printer is not None:
                    printer(line)
                else:
                    self._terminal.write(line)
                    self._terminal.flush()


@contextlib.contextmanager
def _lines_above() -> Iterator[tuple[Any, _Lines]]:
    """Descriptors 1 and 2 into a pipe for the block; yields the terminal and the reader."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    terminal = os.fdopen(os.dup(saved[2]), "w", buffering=1, errors="replace")
    read_fd, write_fd = os.pipe()
    lines = _Lines(read_fd, terminal)
    os.dup2(write_fd, 1)
    os.dup2(write_fd, 2)
    os.close(write_fd)
    try:
        yield terminal, lines
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        for fd, original in saved.items():
            os.dup2(original, fd)
            os.close(original)
