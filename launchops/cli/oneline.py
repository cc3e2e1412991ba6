"""One line per problem on stderr, whichever driver runs the work.

- launchops' own warnings (a key file others can read) print as `warning: <message>`,
  once a process, without Python's `file:line: Category:` and source line.
- A flow run that fails reaches the user as the command's one error line: Prefect's
  console lines for it (the engine's "Encountered exception" with its traceback, the
  "Finished in state Failed" line) are left out of the terminal, never out of the run's
  logs on the Prefect API. `launchops --debug` (or PREFECT_LOGGING_LEVEL=DEBUG) shows them.

No Prefect import: the console handler is found on the root logger by its class name.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from typing import TextIO

OWN_WARNINGS = frozenset({"KeypairPermissionWarning"})
RUN_LOGGERS = ("prefect.flow_runs", "prefect.task_runs")
RUN_SUMMARY = "prefect.flow_runs.summary"  # a flow run's summary lines (flows/outcome.py)
_shown: set[str] = set()
_original = warnings.showwarning


def debugging() -> bool:
    asked = os.environ.get("LAUNCHOPS_DEBUG", "").lower() in ("1", "true", "yes", "on")
    return asked or (os.environ.get("PREFECT_LOGGING_LEVEL", "").upper() == "DEBUG")


def _show(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    if category.__name__ not in OWN_WARNINGS or debugging():
        _original(message, category, filename, lineno, file, line)
        return
    text = str(message)
    if text in _shown:
        return
    _shown.add(text)
    (file or sys.stderr).write(f"warning: {text}\n")


def one_line_warnings() -> None:
    """launchops' warnings as one line each (installed by the command line's entry)."""
    warnings.showwarning = _show


class _RunFailures(logging.Filter):
    """Drops a flow or task run's errors and summary lines from the terminal: the command
    says them."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == RUN_SUMMARY:
            return False
        return not (record.levelno >= logging.ERROR and record.name.startswith(RUN_LOGGERS))


def hush_run_failures() -> None:
    """Once Prefect has set up its logging: its console handler leaves run failures to the
    command's error line (not with --debug)."""
    if debugging():
        return
    for handler in logging.getLogger().handlers:
        if type(handler).__name__ != "PrefectConsoleHandler":
            continue
        if not any(isinstance(f, _RunFailures) for f in handler.filters):
            handler.addFilter(_RunFailures())


def prefect_logging_ready() -> None:
    """Prefect's logging as a flow run sets it up (imports Prefect: call it in commands)."""
    from prefect.logging.configuration import ensure_logging_setup

    ensure_logging_setup()
    hush_run_failures()


def prefect_loop_ready() -> None:
    """Prefect's global event loop thread started here, before a flow starts: a flow run's
    heartbeat thread emits its first event as the run starts, and Prefect (3.8 and 3.9)
    makes that loop without a lock, so the heartbeat thread and the flow's own first
    client could each make one; the events worker started on the first then refused to
    run ("Services must run on the global loop thread", a traceback on the command's
    stderr, once in CI). Made once here, both find it running."""
    from prefect._internal.concurrency.threads import get_global_loop

    get_global_loop()


__all__ = [
    "debugging",
    "hush_run_failures",
    "one_line_warnings",
    "prefect_logging_ready",
    "prefect_loop_ready",
]
