"""A Prefect server on PostgreSQL and process workers, as an ops team runs them: real
`prefect server start` and `prefect worker start` processes, each in its own session so
a test can stop (or kill) it with everything it started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx

from launchops.cli.common import PREFECT_SERVER_SETTINGS

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
PREFECT = [sys.executable, "-m", "prefect"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def database(prefix: str):
    """A fresh PostgreSQL database, dropped after."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'create database "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(f'drop database if exists "{name}" with (force)')


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children first found), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(process: subprocess.Popen[Any], sig: int = signal.SIGKILL) -> None:
    """`sig` to the process's session and to everything below it (a machine dying)."""
    below = descendants(process.pid)
    for pid in [process.pid, *below]:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(os.getpgid(pid), sig)
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def stop(process: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL whatever is left after the grace period."""
    if process.poll() is None:
        below = descendants(process.pid)
        os.killpg(process.pid, signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
        for pid in below:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    kill_tree(process)
    process.wait(timeout=30)


class PrefectServer:
    """`prefect server start` on its own PostgreSQL database and port (`port`: the port of
    a server stopped before, to start it again as it was)."""

    def __init__(
        self, home: Path, database_name: str, port: int | None = None, **settings: str
    ) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/api"
        self.env = {
            **os.environ,
            "PREFECT_HOME": str(home),
            "PREFECT_API_DATABASE_CONNECTION_URL": (
                f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database_name}"
            ),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PREFECT_UI_API_URL": self.url,  # the UI's pages call the API here
            **PREFECT_SERVER_SETTINGS,
            **settings,
        }
        self.log = home / "server.log"
        home.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [*PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self.env,
            stdout=self.log.open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while True:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, self.log.read_text()[-3000:]
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)

    def client_env(self, home: Path) -> dict[str, str]:
        """What a client process (a worker, the CLI) needs to talk to this server."""
        return {
            "PREFECT_API_URL": self.url,
            "PREFECT_HOME": str(home),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            "PREFECT_LOGGING_LEVEL": "WARNING",
        }

    def api(self, method: str, path: str, **kw: Any) -> Any:
        answer = httpx.request(method, f"{self.url}{path}", timeout=30, **kw)
        answer.raise_for_status()
        return answer.json() if answer.content else None

    def stop(self) -> None:
        stop(self.process)


class Worker:
    """`prefect worker start --pool POOL --type process --limit 1`, its flow runs in its
    own LAUNCHOPS_HOME."""

    def __init__(self, name: str, pool: str, env: dict[str, str], log: Path) -> None:
        self.name = name
        self.env = env
        self.log = log
        self.pool = pool
        self.process = self._start()

    def _start(self) -> subprocess.Popen[Any]:
        command = [*PREFECT, "worker", "start", "--pool", self.pool, "--type", "process"]
        return subprocess.Popen(
            [*command, "--limit", "1", "--name", self.name],
            env=self.env,
            stdout=self.log.open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def restart(self) -> None:
        self.process = self._start()

    def kill(self) -> None:
        kill_tree(self.process)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        stop(self.process)


def _chromium(url: str, *flags: str, wait_ms: int) -> subprocess.CompletedProcess[str] | None:
    import shutil
    import tempfile

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return None
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--window-size=1440,1000",
                f"--virtual-time-budget={wait_ms}",
                *flags,
                url,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def screenshot(url: str, out: Path, wait_ms: int = 15000) -> Path | None:
    """A PNG of the page as headless Chromium renders it (None when Chromium is absent)."""
    done = _chromium(url, f"--screenshot={out}", wait_ms=wait_ms)
    return out if done is not None and out.exists() else None


def page_text(url: str, wait_ms: int = 15000) -> str | None:
    """The page's DOM once its scripts ran (None when Chromium is absent)."""
    done = _chromium(url, "--dump-dom", wait_ms=wait_ms)
    return done.stdout if done is not None else None
