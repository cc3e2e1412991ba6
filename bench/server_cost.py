"""What one Prefect server costs the suite: the CPU it spends to start (until its first
healthy answer) and its CPU a minute idle, measured on its whole process tree.

    python bench/server_cost.py                      # the session's test server
    python bench/server_cost.py --postgres           # `prefect server start` on PostgreSQL
    python bench/server_cost.py --idle 60 --json

The test server is what `tests/conftest.py:prefect_server` starts in each pytest process
(`prefect_test_harness`, launchops' server settings, a new SQLite database). `--postgres`
starts `prefect server start` with `tests/support/prefect_pool.py`'s `PrefectServer`,
twice on one new database of the machine's PostgreSQL (127.0.0.1:5432, user postgres): on
it new, then on it migrated. Linux (it reads /proc). By hand, on a quiet machine; never by
CI.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.prefect_path import cpu_of  # noqa: E402
from launchops.cli.common import PREFECT_SERVER_SETTINGS  # noqa: E402
from tests.support.postgres import database  # noqa: E402
from tests.support.prefect_pool import PrefectServer, descendants  # noqa: E402

Row = dict[str, float | str]


def measure(name: str, pid: int, started: float, idle: float) -> Row:
    """The server's CPU so far (its start) and over `idle` seconds of nothing after."""
    up, at_start = time.monotonic() - started, cpu_of(pid)
    time.sleep(idle)
    return {
        "server": name,
        "start_wall_s": up,
        "start_cpu_s": at_start,
        "idle_cpu_s_min": (cpu_of(pid) - at_start) / idle * 60,
    }


def session_server(idle: float) -> list[Row]:
    """`prefect_test_harness` as the suite's session fixture starts it."""
    os.environ.update(
        PREFECT_HOME=tempfile.mkdtemp(prefix="server-cost-"),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_LOGGING_LEVEL="WARNING",
        **PREFECT_SERVER_SETTINGS,
    )
    from prefect.testing.utilities import prefect_test_harness

    started = time.monotonic()
    with prefect_test_harness(server_startup_timeout=120):
        [server, *_] = descendants(os.getpid())
        return [measure("test server (prefect_test_harness)", server, started, idle)]


def postgres_servers(idle: float) -> list[Row]:
    """`prefect server start` on a new database, then on it again, migrated."""
    home = Path(tempfile.mkdtemp(prefix="server-cost-"))
    rows = []
    with database("server_cost") as name:
        for what in ("new", "migrated"):
            started = time.monotonic()
            server = PrefectServer(home / what, name)  # returns once healthy
            try:
                label = f"prefect server start, {what} database"
                rows.append(measure(label, server.process.pid, started, idle))
            finally:
                server.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true", help="`prefect server start`")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds left idle")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    run: Callable[[float], list[Row]] = postgres_servers if args.postgres else session_server
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
