"""`launchops deploy --serve` with no Prefect server configured, as the README writes it
(one folder as both `--batch` and `--launches`): a launch file's one-off `schedule:` fires
and the launch is registered with nobody acting, not before its time (Prefect's temporary
server runs no scheduler; launchops runs a server with one); a run of the batch's
deployment leaves that file to its own (`scheduled`)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

import launchops.web as web
from tests.support import forks, prefect_db
from tests.support.pipeline import (
    launchops,
    profile_env,
    profile_for,
    state_in_journal,
    stats,
    write_launch,
)
from tests.support.prefect_pool import batch_report, flow_run_id, stop

# From the file written to the schedule: room for a fresh PREFECT_HOME's first server start
# (migrations) on a loaded two-core machine. The run must then come within the deadline.
LEAD_SECONDS = 40
DEADLINE_SECONDS = 180
BATCH = "batch/batch-sandbox"


def _wait_for(
    what: str,
    test: Callable[[], bool],
    deadline: float,
    log: Path,
    process: forks.Popen | subprocess.Popen[bytes],
) -> None:
    """Until `test()` holds; fails at `deadline`, or at once when deploy has ended."""
    while time.monotonic() < deadline:
        if test():
            return
        if process.poll() is not None:
            raise AssertionError(f"deploy ended before {what}; it printed:\n{log.read_text()}")
        time.sleep(1.0)
    raise AssertionError(f"{what} did not happen in time; deploy printed:\n{log.read_text()}")


def _deployed(api: str, name: str) -> bool:
    with suppress(httpx.TransportError):
        return web.get(f"{api}/deployments/name/{name}", timeout=5.0).status_code == 200
    return False


def test_a_one_off_schedule_fires_with_no_server_configured(tmp_path, sandbox_factory):
    sandbox = sandbox_factory()
    # Its database made before; the first test process to ask migrates the session's copy,
    # which takes a while on a loaded machine, so the time is read after.
    prefect_home = prefect_db.seed_home(tmp_path / "prefect")
    env = profile_env(sandbox, tmp_path / "home", PREFECT_HOME=str(prefect_home))
    env.pop("PREFECT_API_URL", None)  # nothing configured: as on a fresh machine
    # Whole seconds, as the file gives it: the launch may start at 17:00:17.000 for a
    # `when` of 17:00:17.600, and must not be taken for early.
    when = (datetime.now(UTC) + timedelta(seconds=LEAD_SECONDS)).replace(microsecond=0)
    launches = tmp_path / "launches"
    write_launch(launches, "soon.yaml", key="fires-soon", schedule=f"{when:%Y-%m-%dT%H:%M:%SZ}")
    log = tmp_path / "deploy.log"
    with log.open("w") as out:
        process = forks.popen(
            [
                sys.executable,
                "-m",
                "launchops.cli",
                *("deploy", "--serve", "--batch", str(launches), "--launches", str(launches)),
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + LEAD_SECONDS + DEADLINE_SECONDS
        _wait_for(
            "the server's start",
            lambda: "Prefect server at" in log.read_text(),
            deadline,
            log,
            process,
        )
        [api] = re.findall(r"Prefect server at (\S+)", log.read_text())
        # The server answers before serving has made its deployments (Prefect prints its
        # table of them once made): a run asked for sooner finds no deployment.
        _wait_for("the batch's deployment", lambda: _deployed(api, BATCH), deadline, log, process)
        _run_the_batch_by_hand(env, api, tmp_path / "home", when, sandbox)
        journal = profile_for(sandbox, tmp_path / "home").journal
        # Registered at the service, and journaled so: a Ctrl-C between the two leaves the
        # journal at `confirmed` (the next run registers it again, idempotently), which is
        # not what this test asks about.
        registered = lambda: (  # noqa: E731
            stats(sandbox)["launches"]["registered"] >= 1
            and state_in_journal(journal, "fires-soon") == "registered"
        )
        _wait_for("the scheduled launch", registered, deadline, log, process)
        assert datetime.now(UTC) >= when - timedelta(seconds=1)  # not before its time
        os.kill(process.pid, signal.SIGINT)  # Ctrl-C: serving stops, and its server with it
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=60)
        assert process.poll() is not None, log.read_text()
        with suppress(httpx.TransportError):
            answer = web.get(f"{api}/health", timeout=2.0)
            raise AssertionError(f"the server still answers after the command: {answer}")
    finally:
        stop(process)
    status = launchops(env, "status", "fires-soon", "--json", timeout=120)
    assert '"state": "registered"' in status.stdout, status.stdout + status.stderr


def _run_the_batch_by_hand(
    env: dict[str, str], api: str, home: Path, when: datetime, sandbox: object
) -> None:
    """A run of the served batch deployment (its cron is hourly: run by hand here) over the
    same folder: the scheduled file is left to its own deployment, nothing of it created."""
    ran = launchops(
        {**env, "PREFECT_API_URL": api},
        *("deployment", "run", BATCH, "--watch"),
        module="prefect",
        timeout=DEADLINE_SECONDS,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    created = stats(sandbox)["launches"]["created"]  # read first, then the clock
    if datetime.now(UTC) < when:  # as it usually is: before the launch's time, none of it
        assert created == 0
    found = batch_report(api, flow_run_id(ran.stdout), [home / "sandbox" / "reports"])
    assert found["counts"] == {"scheduled": 1}, found
    [row] = found["launches"]
    assert (row["key"], row["state"], row["ok"]) == ("fires-soon", "scheduled", True), row
    assert row["scheduledFor"] == f"{when:%Y-%m-%dT%H:%M:%SZ}", row
