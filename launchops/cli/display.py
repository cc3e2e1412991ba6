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
import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar


@contextlib.contextmanager
def live_display(render: Callable[[], Any], *, refresh_per_second: float = 8) -> Iterator[Any]:
    """A rich Live of `render()` on stderr while the block runs; a plain final render when
    stderr is not a terminal. Yields the Live (call `refresh()` after a change)."""
    from rich.console import Console
    from rich.live import Live

    if not sys.stderr.isatty():  # a log, a pipe: no redrawing, the last render once
        yield _Printed()
        Console(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False).print(
            render()
        )
        return
    with _lines_above() as (terminal, lines):
        console = Console(file=terminal, highlight=False, soft_wrap=True, markup=False, emoji=False)
        live = Live(
            console=console,
            get_renderable=render,
            refresh_per_second=refresh_per_second,
            redirect_stdout=False,  # descriptors 1 and 2 are captured below rich
            redirect_stderr=False,
        )
        lines.console = console
        with live:
            try:
                yield live
            finally:
                lines.drain()  # what was written so far goes above the last render


class _Printed:
    """The display off a terminal: nothing to refresh."""

    def refresh(self) -> None:
        return None


class _Lines:
    """Lines read from the captured descriptors, each printed through the display's console:
    above the display while it is up (rich does that), plainly after."""

    _MARK = "\x00launchops-drained\n"

    def __init__(self, read_fd: int, terminal: Any) -> None:
        self.console: Any = None
        self._read_fd = read_fd
        self._terminal = terminal
        self._drained = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="launchops-lines", daemon=True)
        self._thread.start()

    def drain(self, timeout: float = 2.0) -> None:
        """Wait until every line written before this call has been printed."""
        self._drained.clear()
        with contextlib.suppress(OSError):
            os.write(2, self._MARK.encode())
        self._drained.wait(timeout)

    def _pump(self) -> None:
        with os.fdopen(self._read_fd, "r", errors="replace", closefd=True) as lines:
            for line in lines:
                if line == self._MARK:
                    self._drained.set()
                elif self.console is not None:
                    self.console.print(line, markup=False, highlight=False, end="")
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


# ── what is shown ───────────────────────────────────────────────────────────


class StepBoard:
    """The steps of one launch, driven by the pipeline's progress messages; what happens
    beside them (the sandbox started, a key funded, a wait for the RPC) shows as a row
    above them, named for what said it."""

    # step status -> (mark, style); any other status (stopped) is a red x
    MARKS: ClassVar = {"waiting": ("·", "dim"), "running": (">", "yellow"), "done": ("✓", "green")}

    def __init__(self) -> None:
        from launchops.states import STEP_ORDER

        self.steps = [str(step) for step in STEP_ORDER]
        self.status = dict.fromkeys(self.steps, "waiting")
        self.notes = dict.fromkeys(self.steps, "")
        self.note = ""
        self.note_from = "sandbox"
        self._live: Any = None

    @contextlib.contextmanager
    def live(self) -> Iterator[None]:
        with live_display(self._render) as self._live:
            yield
        self._live = None

    def update(self, key: str, step: str, message: str) -> None:
        if step in self.status:
            index = self.steps.index(step)
            for earlier in self.steps[:index]:
                self.status[earlier] = "done"
            self.status[step] = "running"
            self.notes[step] = message
        else:
            self.note, self.note_from = message, step
        if self._live is not None:
            self._live.refresh()

    def finish(self, finished: bool) -> None:
        for step in self.steps:
            if finished:
                self.status[step] = "done"
            elif self.status[step] == "running":
                self.status[step] = "stopped"
        if self._live is not None:
            self._live.refresh()

    def _render(self) -> Any:
        from rich.table import Table
        from rich.text import Text

        table = Table(show_header=False, box=None)
        table.add_column(no_wrap=True)
        table.add_column(no_wrap=True)
        table.add_column(overflow="ellipsis")  # wrapped at words; a longer word ends in …
        if self.note:  # Text: a note may quote the service or a file, `[...]` and all
            table.add_row(Text("-", style="dim"), Text(self.note_from), Text(self.note))
        for step in self.steps:
            mark = Text(*self.MARKS.get(self.status[step], ("x", "red")))
            table.add_row(mark, step, Text(self.notes[step]))
        return table


class BatchProgress:
    """A progress bar over a batch's launches, with a live count per state. Off a terminal
    (a log, CI, a supervisor) there is nothing to redraw: one line per launch state change
    instead, and the count every `SUMMARY_SECONDS` while the batch runs."""

    SUMMARY_SECONDS = 30.0

    def __init__(self, total: int, *, lines: bool | None = None) -> None:
        self.total = total
        self.rows: dict[str, Any] = {}
        self.waiting = ""  # what the batch waits for, when it does (the RPC, say)
        self.lines = not sys.stderr.isatty() if lines is None else lines
        self._said: dict[str, str] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def live(self) -> Iterator[Any]:
        if not self.lines:
            with live_display(self._render, refresh_per_second=4) as live:
                yield live
            return
        done = threading.Event()
        counter = threading.Thread(target=self._count_every, args=(done,), daemon=True)
        counter.start()
        try:
            with live_display(self._render, refresh_per_second=4) as live:
                yield live
        finally:
            done.set()
            counter.join(timeout=1.0)

    def update(self, row: Any) -> None:
        self.rows[row.file] = row
        if self.lines:
            self._say(row)

    def _say(self, row: Any) -> None:
        """One line when a launch's state changes: the time, the file, its key, its state
        and, once it ended otherwise than finished, why."""
        state = str(row.state)
        with self._lock:
            if self._said.get(row.file) == state:
                return
            self._said[row.file] = state
        key = f" ({row.key})" if row.key else ""
        why = f": {row.error}" if row.error and not row.underway else ""
        self._print(f"{row.file}{key}: {state}{why}")

    def _count_every(self, done: threading.Event) -> None:
        while not done.wait(self.SUMMARY_SECONDS):
            self._print(self.summary())

    def summary(self) -> str:
        """`3/5 launches (registered: 3  running: 2)`: where the batch stands."""
        finished, counted = self._counts()
        return f"{finished}/{self.total} launches ({counted or 'validating'})"

    def _counts(self) -> tuple[int, str]:
        """Launches worked to an end, and `registered: 3  running: 2`."""
        rows = list(self.rows.values())
        tally: dict[str, int] = {}
        for row in rows:
            tally[str(row.state)] = tally.get(str(row.state), 0) + 1
        counted = "  ".join(f"{state}: {n}" for state, n in sorted(tally.items()))
        return sum(1 for row in rows if not row.underway), counted

    def _print(self, line: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        with self._lock:
            sys.stderr.write(f"{stamp} {line}\n")
            sys.stderr.flush()

    def note(self, key: str, step: str, message: str) -> None:
        """A progress message: one of the batch's own (no launch key) shows below the bar
        until the next one (a wait for the RPC and how long it lasts)."""
        if not key:
            self.waiting = f"{step}: {message}" if message else ""

    def _render(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table
        from rich.text import Text

        finished, counted = self._counts()
        grid = Table.grid(padding=(0, 1))
        grid.add_row(
            ProgressBar(total=self.total, completed=finished, width=40),
            f"{finished}/{self.total} launches",
        )
        grid.add_row("", counted or "validating")
        if self.waiting:
            grid.add_row("", Text(self.waiting))
        return grid
