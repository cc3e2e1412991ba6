"""A Prefect server of `deploy --serve`'s own, when no PREFECT_API_URL is configured.

Prefect's temporary server runs only the services marked for ephemeral servers (the
task-run recorder, the event persister): no scheduler, so a schedule served against it
never makes a run. With no server configured, `deploy --serve` runs this one instead:
Prefect's server with every service `prefect server start` runs (the scheduler among
them), on a free loopback port, on PREFECT_HOME's database, no UI, for as long as the
command (`launchops.cli.prefect_server`: it dies with this process).

A Ctrl-C stops serving within a bound (`stops_within`): a second one, or half a minute
after the first, and the command leaves without waiting.

A one-off launch whose time passes before serving has made its deployment (a server's
first start can take minutes on a loaded machine) would never get a run from the
scheduler: `one_offs_kept` makes it, once its time has passed (`flows/pool.py: catch_up`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from types import FrameType

from launchops.cli.prefect_server import prefect_server, stop_running

# A deployment made (or changed) now is scheduled within a couple of seconds, every other
# one within ten; the serving runner asks for due runs every few seconds. An environment
# that sets any of these keeps its value.
SCHEDULING = {
    "PREFECT_SERVER_SERVICES_SCHEDULER_RECENT_DEPLOYMENTS_LOOP_SECONDS": "2",
    "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "10",
    "PREFECT_RUNNER_POLL_FREQUENCY": "3",
}


@contextmanager
def scheduling_server(timeout: float = 120.0) -> Iterator[str]:
    """Prefect's server with its services, started here and stopped after the block (and
    with this process, however it ends); yields its API URL. A server that does not come
    up is one error line."""
    for name, value in SCHEDULING.items():
        os.environ.setdefault(name, value)
    with prefect_server(ephemeral=False, timeout=timeout, what="the schedules") as url:
        yield url


# From the first Ctrl-C, serving has this long to stop (its in-flight runs finishing, its
# schedules paused) before the command leaves anyway; a second Ctrl-C leaves at once.
STOP_SECONDS = 30.0


@contextmanager
def stops_within(seconds: float = STOP_SECONDS) -> Iterator[None]:
    """A Ctrl-C in the block stops it as Python's own handler does (KeyboardInterrupt in
    the main thread), and bounds the stop: on a second Ctrl-C, or `seconds` after the
    first while still in the block, the process leaves with one line (exit 130). Serving
    without it could swallow the first Ctrl-C (asyncio only cancels its main task on the
    first, and a task that absorbs the cancellation keeps serving) or wait without end on
    a flow run that does not finish."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    timers: list[threading.Timer] = []

    def leave(line: str) -> None:
        sys.stderr.write(f"{line}\n")
        sys.stderr.flush()
        stop_running()  # the schedules' server goes with the command, not after it
        os._exit(130)

    def interrupted(signum: int, frame: FrameType | None) -> None:
        if timers:
            leave("a second Ctrl-C: left without waiting for serving to stop")
        late = f"serving did not stop within {seconds:.0f} s of Ctrl-C; left without waiting"
        timers.append(threading.Timer(seconds, leave, (late,)))
        timers[0].daemon = True
        timers[0].start()
        signal.default_int_handler(signum, frame)

    previous = signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        for timer in timers:  # what follows the block (the server's stop) has its own bound
            timer.cancel()


def one_offs_kept(
    one_offs: dict[str, datetime], say: Callable[[str], None]
) -> threading.Thread | None:
    """While serving, in a thread of its own: the run of each one-off launch whose time
    passed before its deployment was served, made once the time has passed, said with
    `say`. None when there is no one-off."""
    if not one_offs:
        return None
    from math import inf

    from prefect.settings import PREFECT_API_URL, temporary_settings

    from launchops.flows.pool import catch_up

    url = PREFECT_API_URL.value()  # this thread's settings, for the other one

    def keep() -> None:
        def made(name: str) -> None:
            say(f"run made {name}: its time came before serving began (due now)")

        try:
            with temporary_settings(updates={PREFECT_API_URL: url}):
                asyncio.run(catch_up(one_offs, within=inf, made=made))
        except Exception as exc:  # serving goes on; the scheduler may still make the run
            say(f"could not check the one-off launches' runs: {type(exc).__name__}: {exc}")

    thread = threading.Thread(target=keep, name="launchops-one-offs", daemon=True)
    thread.start()
    return thread


__all__ = ["SCHEDULING", "STOP_SECONDS", "one_offs_kept", "scheduling_server", "stops_within"]
