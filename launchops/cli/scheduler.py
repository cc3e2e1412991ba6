"""A Prefect server of `deploy --serve`'s own, when no PREFECT_API_URL is configured.

Prefect's temporary server runs only the services marked for ephemeral servers (the
task-run recorder, the event persister): no scheduler, so a schedule served against it
never makes a run. With no server configured, `deploy --serve` runs this one instead:
Prefect's server with every service `prefect server start` runs (the scheduler among
them), on a free loopback port, on PREFECT_HOME's database, no UI, for as long as the
command. No Prefect import here: the server is a child process.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import httpx

from launchops.errors import LaunchOpsError

# A deployment made (or changed) now is scheduled within a couple of seconds, every other
# one within ten; the serving runner asks for due runs every few seconds. An environment
# that sets any of these keeps its value.
SCHEDULING = {
    "PREFECT_SERVER_SERVICES_SCHEDULER_RECENT_DEPLOYMENTS_LOOP_SECONDS": "2",
    "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "10",
    "PREFECT_RUNNER_POLL_FREQUENCY": "3",
}
STOP_GRACE_SECONDS = 10.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def scheduling_server(timeout: float = 120.0) -> Iterator[str]:
    """Prefect's server with its services, started here and stopped after the block;
    yields its API URL. A server that does not come up is one error line."""
    for name, value in SCHEDULING.items():
        os.environ.setdefault(name, value)
    with tempfile.TemporaryFile("w+") as log:
        process, url = _start(log, timeout)
        try:
            yield url
        finally:
            _stop(process)


def _start(log: IO[str], timeout: float) -> tuple[subprocess.Popen[bytes], str]:
    env = {
        **os.environ,
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT__SERVER_FINAL": "1",
    }
    env.pop("PREFECT_API_URL", None)
    deadline = time.monotonic() + timeout
    for _ in range(3):  # a port taken between choosing it and binding it: another one
        port = free_port()
        command = [
            *(sys.executable, "-m", "uvicorn", "--factory"),
            "prefect.server.api.server:create_app",
            *("--host", "127.0.0.1", "--port", str(port), "--log-level", "error"),
        ]
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
        url = f"http://127.0.0.1:{port}/api"
        if _healthy(process, url, deadline):
            return process, url
        _stop(process)
        if time.monotonic() >= deadline:
            break
    log.seek(0)
    last = ([line.strip() for line in log.read().splitlines() if line.strip()] or ["no output"])[-1]
    raise LaunchOpsError(
        f"the Prefect server for the schedules did not start ({last}); "
        "start one (prefect server start) and set PREFECT_API_URL"
    )


def _healthy(process: subprocess.Popen[bytes], url: str, deadline: float) -> bool:
    """Whether the server answers its health check before `deadline` (False: it exited)."""
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            try:
                if client.get(f"{url}/health").status_code == 200:
                    return True
            except httpx.TransportError:
                pass
            time.sleep(0.2)
    return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


__all__ = ["SCHEDULING", "scheduling_server"]
