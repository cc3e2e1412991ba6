"""A real `launchops launch` process killed with SIGKILL at random moments, then run again:
every launch ends registered exactly once, with exactly one mint on the chain (counted by
the sandbox's stats and read from the chain), whatever step the kill interrupted.

Each kill waits for a step's state to appear in the journal, then a random few
milliseconds more, so the kills spread over the steps however fast the machine is."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import launchops.web as web
from tests.support.pipeline import profile_env, started, stats, write_launch

KILLS = 12
TARGETS = ["validated", "created", "signed", "submitting", "submitted", "confirmed"]


def launch_process(env, path) -> subprocess.Popen[str]:
    return started(env, "launch", str(path), "--no-prefect", "--json", session=True)


def journal_state(journal: Path, key: str) -> str:
    """The launch's state, read straight from the SQLite file ("(not recorded)": no row,
    or no file or table yet)."""
    try:
        with sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1) as db:
            row = db.execute("select state from launches where key = ?", (key,)).fetchone()
    except sqlite3.Error:
        row = None
    return row[0] if row else "(not recorded)"


def wait_for_state(journal: Path, key: str, target: str, deadline: float) -> None:
    """Until the launch is at `target` or past it."""
    order = [*TARGETS, "registered"]
    while time.monotonic() < deadline:
        state = journal_state(journal, key)
        if state in order and order.index(state) >= order.index(target):
            return
        time.sleep(0.005)


def test_sigkill_at_random_points_then_rerun(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=150)
    env = profile_env(sandbox, tmp_path / "home")
    rng = random.Random(int(os.environ.get("LAUNCHOPS_KILL_SEED", "2026")))
    matrix = []
    for index in range(KILLS):
        key = f"kill-{index}"
        path = write_launch(tmp_path / "launches", f"{key}.yaml", key=key)
        target, delay = TARGETS[index % len(TARGETS)], rng.uniform(0.0, 0.01)
        journal = tmp_path / "home" / "sandbox" / "journal.db"
        process = launch_process(env, path)
        wait_for_state(journal, key, target, time.monotonic() + 60)
        time.sleep(delay)
        # Past "confirmed", the launch may have registered and its process ended (and been
        # reaped) in those milliseconds: a kill after the end, and the rerun finds it done.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        at_kill = journal_state(journal, key)
        rerun = launch_process(env, path)
        out, err = rerun.communicate(timeout=180)
        assert rerun.returncode == 0, f"{key} killed at {target}+{delay:.2f}s: {err[-2000:]}"
        result = json.loads(out)
        assert result["state"] == "registered"
        matrix.append((key, f"{target}+{delay:.2f}s", at_kill, result["attempts"], result["mint"]))
    print("\nkill matrix (launch, killed at, journal state at kill, creates, mint):")
    for row in matrix:
        print("  " + "  ".join(str(c) for c in row))
    counts = stats(sandbox)["launches"]
    assert counts["registered"] == KILLS and counts["mintsOnChain"] == KILLS, counts
    mints = {row[4] for row in matrix}
    assert len(mints) == KILLS
    for mint in mints:  # each registered once, one launch listed per token
        token = web.get(f"{sandbox.base_url}/tokens/{mint}").json()["data"]
        assert len(token["launches"]) == 1
    states = {row[2] for row in matrix}
    assert len(states) >= 3, f"kills landed in too few steps: {states}"
