"""What one Prefect server costs the suite: the CPU it spends to start (until its first
healthy answer) and its CPU a minute idle, measured on its whole process tree.

    python bench/server_cost.py                      # the session's test server
    python bench/server_cost.py --postgres           # `prefect server start` on PostgreSQL
    python bench/server_cost.py --idle 60 --json

The test server is what `tests/conftest.py:prefect_server` starts in each pytest process
(`prefect_test_harness`, launchops' server settings, a new SQLite database). `--postgres`
starts `prefect server start` as `tests/support/prefect_pool.py` does, twice on one new
database of the machine's PostgreSQL (127.0.0.1:5432, user postgres): on it new, then on
it migrated. Linux (it reads /proc). By hand, on a quiet machine; never by CI.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from launchops import web  # noqa: E402
from launchops.cli.common import PREFECT_SERVER_SETTINGS  # noqa: E402
from launchops.cli.prefect_server import free_port  # noqa: E402

ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
TICKS = os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    """`pid` and every process below it, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found.append(current := todo.pop())
        todo.extend(children.get(current, []))
    return found


def tree_cpu(pid: int) -> float:
    """Seconds of CPU (user and system) the process and those below it have spent."""
    total = 0
    for each in _tree(pid):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def measure(name: str, pid: int, started: float, idle: float) -> dict[str, float | str]:
    """The server's CPU so far (its start) and over `idle` seconds of nothing after."""
    up, at_start = time.monotonic() - started, tree_cpu(pid)
    time.sleep(idle)
    per_minute = (tree_cpu(pid) - at_start) / idle * 60
    return {
        "server": name,
        "start_wall_s": up,
        "start_cpu_s": at_start,
        "idle_cpu_s_min": per_minute,
    }


def _settings() -> dict[str, str]:
    return {
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        **PREFECT_SERVER_SETTINGS,
    }


def session_server(idle: float) -> list[dict[str, float | str]]:
    """`prefect_test_harness` as the suite's session fixture starts it."""
    os.environ.update(PREFECT_HOME=tempfile.mkdtemp(prefix="server-cost-"), **_settings())
    from prefect.testing.utilities import prefect_test_harness

    started = time.monotonic()
    with prefect_test_harness(server_startup_timeout=120):
        [server] = [pid for pid in _tree(os.getpid()) if pid != os.getpid()][:1]
        return [measure("test server (prefect_test_harness)", server, started, idle)]


@contextmanager
def postgres_database() -> Iterator[str]:
    import psycopg

    name = f"server_cost_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(ADMIN, autocommit=True) as admin:
        admin.execute(f'create database "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(ADMIN, autocommit=True) as admin:
            admin.execute(f'drop database if exists "{name}" with (force)')


def server_start(database: str, home: Path, idle: float, name: str) -> dict[str, float | str]:
    """`prefect server start` on `database`, measured, then stopped."""
    port = free_port()
    url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database}"
    env = {**os.environ, **_settings(), "PREFECT_HOME": str(home)}
    env["PREFECT_API_DATABASE_CONNECTION_URL"] = url
    command = [sys.executable, "-m", "prefect", "server", "start", "--port", str(port)]
    started = time.monotonic()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        _wait_healthy(process, f"http://127.0.0.1:{port}/api/health")
        return measure(name, process.pid, started, idle)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)


def _wait_healthy(process: subprocess.Popen[bytes], health: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited ({process.returncode}) before it answered")
        try:
            if web.get(health, timeout=2).status_code == 200:
                return
        except httpx.TransportError:  # not listening yet
            pass
        time.sleep(0.1)
    raise SystemExit(f"no healthy answer from {health} within {timeout:.0f} s")


def postgres_servers(idle: float) -> list[dict[str, float | str]]:
    home = Path(tempfile.mkdtemp(prefix="server-cost-"))
    with postgres_database() as database:
        return [
            server_start(database, home, idle, "prefect server start, new database"),
            server_start(database, home, idle, "prefect server start, migrated database"),
        ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true", help="`prefect server start`")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds left idle")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    run: Callable[[float], list[dict[str, float | str]]] = (
        postgres_servers if args.postgres else session_server
    )
    rows = run(args.idle)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        print(
            f"{row['server']}: healthy after {row['start_wall_s']:.1f} s, "
            f"{row['start_cpu_s']:.1f} s of CPU; idle {row['idle_cpu_s_min']:.2f} s of CPU a minute"
        )


if __name__ == "__main__":
    main()
