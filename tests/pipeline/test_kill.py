"""A real `launchops launch` process killed with SIGKILL at random moments, then run again:
every launch ends registered exactly once, with exactly one mint on the chain (counted by
the sandbox's stats and read from the chain), whatever step the kill interrupted."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import httpx

from tests.support.pipeline import profile_env, stats, write_launch

KILLS = 12


def launch_process(env, path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "launchops.cli", "launch", str(path), "--no-prefect", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def journal_state(env, key: str) -> str:
    answer = subprocess.run(
        [sys.executable, "-m", "launchops.cli", "status", key, "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(answer.stdout)["state"] if answer.returncode == 0 else "(not recorded)"


def test_sigkill_at_random_points_then_rerun(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=150)
    env = profile_env(sandbox, tmp_path / "home")
    rng = random.Random(int(os.environ.get("LAUNCHOPS_KILL_SEED", "2026")))
    matrix = []
    for index in range(KILLS):
        key = f"kill-{index}"
        path = write_launch(tmp_path / "launches", f"{key}.yaml", key=key)
        delay = rng.uniform(0.7, 2.1)
        process = launch_process(env, path)
        time.sleep(delay)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        at_kill = journal_state(env, key)
        rerun = launch_process(env, path)
        out, err = rerun.communicate(timeout=180)
        assert rerun.returncode == 0, f"{key} killed at {delay:.2f}s ({at_kill}): {err[-2000:]}"
        result = json.loads(out)
        assert result["state"] == "registered"
        matrix.append((key, f"{delay:.2f}s", at_kill, result["attempts"], result["mint"]))
    print("\nkill matrix (launch, kill after, journal state at kill, creates, mint):")
    for row in matrix:
        print("  " + "  ".join(str(c) for c in row))
    counts = stats(sandbox)["launches"]
    assert counts["registered"] == KILLS and counts["mintsOnChain"] == KILLS, counts
    mints = {row[4] for row in matrix}
    assert len(mints) == KILLS
    for mint in mints:  # each registered once, one launch listed per token
        token = httpx.get(f"{sandbox.base_url}/tokens/{mint}").json()["data"]
        assert len(token["launches"]) == 1
    states = {row[2] for row in matrix}
    assert len(states) >= 3, f"kills landed in too few steps: {states}"
