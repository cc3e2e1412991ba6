"""The README's work-pool line exits 0 whether the pool is there or not: run twice on a
Prefect server, it makes the pool once and leaves it be the second time."""

from __future__ import annotations

import os
import subprocess

from tests.support import forks
from tests.support.readme_shell import bash_block, steps

SCHEDULES = "Schedules and several workers"


def test_the_pool_line_runs_twice_with_exit_0(prefect_env, tmp_path):
    [pool_line] = [
        line
        for line in steps(bash_block(SCHEDULES, "deploy --all"))["setup"]
        if "work-pool" in line.command
    ]
    assert pool_line.command.startswith("prefect work-pool inspect launchops"), pool_line
    env = {
        **os.environ,
        **prefect_env,
        "PATH": forks.on_path(os.environ["PATH"]),
    }
    for _ in range(2):
        done = subprocess.run(
            ["bash", "-c", pool_line.command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == pool_line.exits == 0, done.stdout + done.stderr
    inspected = subprocess.run(
        ["prefect", "work-pool", "inspect", "launchops"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert inspected.returncode == 0 and "process" in inspected.stdout, inspected.stdout
