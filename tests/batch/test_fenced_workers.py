"""Several `launchops batch` workers on one PostgreSQL journal, every answer slower than
the lease, workers arriving mid-step, and the first holder stopped (SIGSTOP, as a stalled
process) long enough for its leases to lapse and be taken: every launch ends registered
once, one mint each, no report shows a failure, a launch for a person or database text.

The creates are counted and printed (`-s`): one a launch, plus each create whose answer
its maker could no longer journal (its lease was taken meanwhile: never signed, it cannot
land). `LAUNCHOPS_FENCE_WORKERS=20` adds a run with that many workers (by hand)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

import launchops.web as web
from tests.support.pipeline import profile_env, set_faults, started, write_launch

BY_HAND = os.environ.get("LAUNCHOPS_FENCE_WORKERS")  # by hand, e.g. 20; also the three below
LEASE_SECONDS = float(os.environ.get("LAUNCHOPS_FENCE_LEASE", "2"))
LATENCY_MS = int(os.environ.get("LAUNCHOPS_FENCE_LATENCY_MS", "2500"))  # every answer
LAUNCHES = 6
PAUSE = 3 * LEASE_SECONDS  # the first holder stopped: its leases lapse, others take them
SQL_TEXT = re.compile(
    r"IntegrityError|UniqueViolation|duplicate key|psycopg|sqlalchemy|sqlite3|"
    r"\b(SELECT|INSERT|UPDATE|DELETE)\b"
)
# When the first holder stops: as soon as every launch is recorded (its creates asked, the
# answers 2.5 s away), or once a create was answered (its launch signing or sending, the
# others' answers arriving); or never ("none": the others arrive mid-step all the same).
# Both moments, once reached, stay reached: the poll cannot miss them.
BY_HAND_STOP = os.environ.get("LAUNCHOPS_FENCE_STOP", "creating")
RUNS = [(2, "creating"), (5, "sending")] + ([(int(BY_HAND), BY_HAND_STOP)] if BY_HAND else [])
STOP_AT = {
    "creating": lambda found: len(found) == LAUNCHES,
    "sending": lambda found: bool(set(found.values()) - {"validated"}),
}
STOP_AT["none"] = STOP_AT["sending"]


def states(postgres_url: str, prefix: str) -> dict[str, str]:
    """The batch's launches in the journal (the database is shared by the session)."""
    import psycopg

    with psycopg.connect(postgres_url) as db:
        try:
            query = "select key, state from launches where key like %s"
            return dict(db.execute(query, (f"{prefix}%",)).fetchall())
        except psycopg.errors.UndefinedTable:
            return {}


def start_worker(env: dict[str, str], folder: Path, log: Path) -> subprocess.Popen[str]:
    return started(env, "batch", str(folder), "--no-prefect", "--json", stderr=log.open("w"))


def wait_until(check, timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, log.read_text()[-3000:]
        time.sleep(0.1)


def run_workers(
    env: dict[str, str],
    folder: Path,
    logs: Path,
    workers: int,
    moment: str,
    prefix: str,
    postgres_url: str,
) -> tuple[list[subprocess.Popen[str]], list[str]]:
    """The first worker, stopped at `moment` for PAUSE s; the others arriving over twice
    the pause (while it is stopped, and mid-step after); each one's stdout."""
    first_log = logs / "worker-0.log"
    first = start_worker(env, folder, first_log)
    procs = [first]
    try:
        wait_until(lambda: STOP_AT[moment](states(postgres_url, prefix)), 120, first_log)
        if moment != "none":
            first.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        gap = 2 * PAUSE / max(1, workers - 1)
        plan = sorted([(PAUSE, 0)] + [((i - 1) * gap, i) for i in range(1, workers)])
        for at, index in plan:
            time.sleep(max(0.0, stopped + at - time.monotonic()))
            if index == 0:
                first.send_signal(signal.SIGCONT)
            else:
                procs.append(start_worker(env, folder, logs / f"worker-{index}.log"))
        patience = 240 * max(1.0, LATENCY_MS / 2500)
        return procs, [proc.communicate(timeout=patience)[0] for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()


@pytest.mark.parametrize(("workers", "moment"), RUNS)
def test_workers_slower_than_the_lease_launch_each_once(
    sandbox_factory, tmp_path, postgres_url, workers, moment
):
    # A blockhash lives 150 slots: 60 s at 2.5 s answers, longer with slower ones.
    sandbox = sandbox_factory(slot_ms=max(400, LATENCY_MS // 6))
    folder, prefix = tmp_path / "launches", f"f{workers}{moment[0]}{uuid.uuid4().hex[:6]}-"
    keys = [f"{prefix}{index:02d}" for index in range(LAUNCHES)]
    for key in keys:
        write_launch(folder, f"{key}.yaml", key=key)
    env = profile_env(
        sandbox,
        tmp_path / "home",
        LAUNCHOPS_JOURNAL_URL=postgres_url,
        LAUNCHOPS_CONCURRENCY=str(LAUNCHES),
        LAUNCHOPS_LEASE_SECONDS=str(LEASE_SECONDS),
    )
    set_faults(sandbox, latency_ms=LATENCY_MS)
    started = time.monotonic()
    procs, outputs = run_workers(env, folder, tmp_path, workers, moment, prefix, postgres_url)
    took = time.monotonic() - started
    logs = [(tmp_path / f"worker-{i}.log").read_text() for i in range(workers)]
    for proc, out, log in zip(procs, outputs, logs, strict=True):
        assert proc.returncode == 0 and out.strip().startswith("{"), (out[-3000:], log[-3000:])
        assert not SQL_TEXT.search(out), out
    reports = [json.loads(out) for out in outputs]
    rows = [row for report in reports for row in report["launches"]]
    assert {row["state"] for row in rows} <= {"registered", "elsewhere"}, rows
    taken = [row for row in rows if "taken over" in (row["error"] or "")]
    # Even the sandbox's admin answers come late: wait for them.
    counts = web.get(f"{sandbox.url}/_sandbox/stats", timeout=60).json()["launches"]
    stop = "never stopped" if moment == "none" else f"stopped {PAUSE:g} s"
    print(
        f"\n{workers} workers ({moment}), {LAUNCHES} launches, lease {LEASE_SECONDS} s, answers "
        f"{LATENCY_MS} ms, first holder {stop}: creates {counts['created']}, "
        f"mints {counts['mintsOnChain']}, registered {counts['registered']}; "
        f"{len(taken)} rows taken over from their holder; {took:.0f} s"
    )
    assert counts["mintsOnChain"] == counts["registered"] == LAUNCHES, counts
    assert states(postgres_url, prefix) == dict.fromkeys(keys, "registered")
