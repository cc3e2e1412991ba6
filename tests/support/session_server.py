"""Each test process's Prefect server: what `prefect.testing.utilities.prefect_test_harness`
starts (the API with the temporary server's services, no UI, on SQLite), started the
suite's way: forked from its fork server (Prefect's server already imported) on a copy of
the suite's migrated database (`tests/support/prefect_db.py`).

The harness starts a new interpreter on a new database: ~8.5 s of CPU before its first
healthy answer, ~5.7 of them migrations and ~2.7 the import, in each of the suite's
processes. Here the same server answers after ~0.5 s; the process's Prefect settings then
point at it as the harness points them.

Between the tests that use it, the server sleeps (SIGSTOP, `Running.pause`): idle, it
still spends ~1 s of CPU a minute (docket's in-memory Redis polls a queue every 100 ms),
and each of the suite's processes keeps one for the whole run while most of its tests
never call it. `tests/conftest.py` wakes it (SIGCONT, then its first healthy answer) for
each test that may call it and puts it to sleep for the others, once the process's log
and event workers have sent what they hold.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

import launchops.web as web
from launchops.cli.common import PREFECT_SERVER_SETTINGS
from launchops.sandbox.process import free_port
from tests.support import forks, prefect_db

STARTUP_SECONDS = 60.0
WAKE_SECONDS = 30.0


@dataclass
class Running:
    """The process's server while it runs: asleep between the tests that use it."""

    process: forks.Popen
    url: str
    log: Path
    asleep: bool = False

    def pause(self) -> None:
        """Asleep, once the process's log and event workers have sent what they hold
        (nothing in flight to it while it sleeps)."""
        if self.asleep:
            return
        drain_workers()
        os.killpg(self.process.pid, signal.SIGSTOP)
        self.asleep = True

    def resume(self) -> None:
        """Awake and answering: the first healthy answer, on a new connection, comes after
        its loop has run the timers that fell due while it slept (its keep-alive
        connections' ends), so no test sends on a connection it is closing."""
        if not self.asleep:
            return
        os.killpg(self.process.pid, signal.SIGCONT)
        self.asleep = False
        wait_started(self.process, self.url, self.log, WAKE_SECONDS)


current: Running | None = None


@contextmanager
def running(home: Path) -> Iterator[str]:
    """The server (its database and log in `home`) until the block ends: its API URL
    (and, meanwhile, `current`: the one the tests wake and put to sleep)."""
    global current
    database = prefect_db.copy_to(home / "prefect-test.db")
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")},
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{database}",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        # what the harness's server is: no UI, the temporary server's services only
        "PREFECT_UI_ENABLED": "0",
        "PREFECT__SERVER_EPHEMERAL": "1",
        "PREFECT__SERVER_FINAL": "1",
        **PREFECT_SERVER_SETTINGS,
        **prefect_db.TEMPLATE_SERVER,  # its copy holds the block types already
    }
    command = [sys.executable, "-m", "uvicorn", "--factory"]
    command += ["prefect.server.api.server:create_app", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--log-level", "error", "--lifespan", "on"]
    log = home / "server.log"
    with log.open("ab") as out:
        process = forks.popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}/api"
    previous = current  # a server started inside another's block gives it back after
    try:
        wait_started(process, url, log, STARTUP_SECONDS)
        current = Running(process, url, log)
        yield url
    finally:
        current = previous
        with contextlib.suppress(ProcessLookupError):  # a stopped process takes no SIGTERM
            os.killpg(process.pid, signal.SIGCONT)
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def wait_started(
    process: forks.Popen | subprocess.Popen[bytes], url: str, log: Path, timeout: float
) -> None:
    """Until the Prefect server `process` started answers /health at `url`; its log's tail
    in the error if it exits first or does not answer within `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the Prefect server at {url} exited: {log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.TransportError):
            if web.get(f"{url}/health", timeout=2).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"no Prefect server at {url}: {log.read_text()[-3000:]}")
        time.sleep(0.1)


@contextmanager
def pointed_at(url: str) -> Iterator[None]:
    """This process's Prefect settings aimed at `url`, as the harness aims them (the
    global settings context too, for contexts copied before), and its log and event
    workers drained before the server stops."""
    import prefect.context
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: url}):
        settings = prefect.context.get_settings_context()
        with prefect.context._temporary_global_settings_context(settings):
            yield
            if current is not None:
                current.resume()
            drain_workers()


def drain_workers() -> None:
    """This process's Prefect log and event workers, once they have sent what they hold."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def drain() -> None:
        with contextlib.suppress(RuntimeError):  # never started
            drained = APILogWorker.instance().drain()
            if drained is not None and hasattr(drained, "__await__"):
                await drained
        drained = EventsWorker.drain_all()
        if drained is not None and hasattr(drained, "__await__"):
            await drained

    run_coro_as_sync(drain())
