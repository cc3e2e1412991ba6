"""Each test process's Prefect server: what `prefect.testing.utilities.prefect_test_harness`
starts (the API with the temporary server's services, no UI, on SQLite), started the
suite's way: forked from its fork server (Prefect's server already imported) on a copy of
the suite's migrated database (`tests/support/prefect_db.py`).

The harness starts a new interpreter on a new database: ~8.5 s of CPU before its first
healthy answer, ~5.7 of them migrations and ~2.7 the import, in each of the suite's
processes. Here the same server answers after ~0.5 s; the process's Prefect settings then
point at it as the harness points them.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

import launchops.web as web
from launchops.cli.common import PREFECT_SERVER_SETTINGS
from launchops.sandbox.process import free_port
from tests.support import forks, prefect_db

STARTUP_SECONDS = 60.0


@contextmanager
def running(home: Path) -> Iterator[str]:
    """The server (its database and log in `home`) until the block ends: its API URL."""
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
    try:
        wait_started(process, url, log, STARTUP_SECONDS)
        yield url
    finally:
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
    from prefect.logging.handlers import APILogWorker
    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect.utilities.asyncutils import run_coro_as_sync

    with temporary_settings(updates={PREFECT_API_URL: url}):
        settings = prefect.context.get_settings_context()
        with prefect.context._temporary_global_settings_context(settings):
            yield

            async def drain() -> None:
                with contextlib.suppress(RuntimeError):  # never started
                    drained = APILogWorker.instance().drain()
                    if drained is not None and hasattr(drained, "__await__"):
                        await drained
                from prefect.events.worker import EventsWorker

                drained = EventsWorker.drain_all()
                if drained is not None and hasattr(drained, "__await__"):
                    await drained

            run_coro_as_sync(drain())
