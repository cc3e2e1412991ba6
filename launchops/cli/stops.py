"""SIGINT and SIGTERM for a command that runs launches (`batch`, `launch`, `resume`,
`registrations retry`, the agents' funding and minting, `rewards claim`), through either
driver, with a terminal or without: the same stop.

The signals are asked as stops (`launchops.pipeline.stopping`): no launch starts any
more, a launch in flight ends its step (cut after a short grace, at once on a second
signal) where the same command continues it, the run's report is written, and the command
ends with one line on stderr (what was stopped, what was in flight, the command that
continues it) and the exit code a shell expects of that signal: 130 (SIGINT), 143
(SIGTERM). Whatever the stop makes the run raise is not shown (`--debug` shows it).

Bounded: a command still running `BOUND_SECONDS` after the first signal, or sent a third,
leaves at once with the line, its Prefect server stopped with it.

Only the standard library here: `launchops --help` stays fast.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import threading
import traceback
from collections.abc import Iterator

from launchops.pipeline import stopping
from launchops.states import REGISTRABLE, LaunchState

BOUND_SECONDS = 30.0
SHOWN_IN_FLIGHT = 4


def same_command() -> str:
    """The command as it was given, to give again."""
    return shlex.join(["launchops", *sys.argv[1:]])


def stop_line(stop: stopping.Stop, *, left_early: bool = False) -> str:
    """The one line: the signal, the launches in flight and where each ended, how many
    were not started, and the command that continues them."""
    not_started, in_flight = stopping.account()
    said = [stop.reason]
    if in_flight:
        shown = [_ended(key, state) for key, state in list(in_flight.items())[:SHOWN_IN_FLIGHT]]
        more = len(in_flight) - len(shown)
        said.append("in flight: " + ", ".join(shown) + (f" and {more} more" if more else ""))
    if not_started:
        said.append(f"not started: {len(not_started)}")
    if not in_flight and not not_started:
        said.append("no launch was in flight")
    if left_early:
        said.append("left without waiting for the launches in flight to stop")
    return "; ".join(said) + f"; to continue, run the same command again: {same_command()}"


def _ended(key: str, state: str) -> str:
    if state == LaunchState.REGISTERED:
        return f"{key} {state}"
    live = " (live, not registered)" if state in REGISTRABLE else ""
    return f"{key} left at {state}{live}"


def _say(line: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """The command's run, stopped by SIGINT or SIGTERM as the module says; typer.Exit with
    the signal's exit code once the run has ended after a stop."""
    import typer

    timers: list[threading.Timer] = []

    def leave(stop: stopping.Stop) -> None:
        from launchops.cli.prefect_server import stop_running

        _say(stop_line(stop, left_early=True))
        stop_running()  # its Prefect server goes with it
        os._exit(stop.exit_code)

    def heard(stop: stopping.Stop) -> None:
        if len(stopping.stops()) >= 3:
            leave(stop)
        if not timers:
            timers.append(threading.Timer(BOUND_SECONDS, leave, (stop,)))
            timers[0].daemon = True
            timers[0].start()

    with stopping.catching(heard):
        try:
            yield
        except BaseException:
            if stopping.asked() is None:
                raise
            if os.environ.get("LAUNCHOPS_DEBUG"):
                traceback.print_exc()
        finally:
            for timer in timers:
                timer.cancel()
    stop = stopping.asked()
    if stop is not None:
        _say(stop_line(stop))
        raise typer.Exit(stop.exit_code)


__all__ = ["BOUND_SECONDS", "same_command", "stop_line", "stoppable"]
