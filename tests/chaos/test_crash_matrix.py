"""The crash matrix: a real `launchops launch` process (Prefect flow, one task per step)
SIGKILLs itself at every step boundary and inside every step (after the side effect,
before the journal write), then the same command runs again. Every cell must end with
the launch registered exactly once and exactly one mint on the chain for it; a batch of
its folder after that (the library `batch --no-prefect` runs, in the test's process: the
command's own process is what the first two runs test) reports it and creates nothing.

The kill points are in tests/support/crash.py; the test prints the matrix
(step x moment -> outcome), one test a cell.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess

import pytest

import launchops.web as web
from launchops.library import batch
from tests.support.crash import MOMENTS
from tests.support.pipeline import (
    launchops,
    profile_env,
    profile_for,
    set_faults,
    state_in_journal,
    stats,
    write_launch,
)


def run(env: dict[str, str], *args: str, kill: str | None = None) -> subprocess.CompletedProcess:
    return launchops(env, *args, kill=kill, timeout=300)


def _slug(name: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in name).split())


@pytest.mark.parametrize("moment", MOMENTS, ids=[_slug(m.name) for m in MOMENTS])
def test_sigkill_at_every_step_boundary_and_inside_every_step(
    sandbox_factory, tmp_path, prefect_env, moment
):
    """One cell of the matrix: killed there, the same command run again registers the
    launch once, with one mint; once more, it is reported and nothing is created."""
    sandbox = sandbox_factory()
    # Status reads come from a node 20 slots behind (each progress call is a slot here).
    set_faults(sandbox, rpc_lag_slots={"getSignatureStatuses": 20})
    env = profile_env(sandbox, tmp_path / "home", **prefect_env)
    journal_url = profile_for(sandbox, tmp_path / "home").journal
    key = f"crash-{_slug(moment.name)}"[:60]
    path = write_launch(tmp_path / "launches", "launch.yaml", key=key)
    killed = run(env, "launch", str(path), "--json", kill=moment.name)
    assert killed.returncode == -signal.SIGKILL, (
        f"{moment.name}: the kill point was never reached "
        f"(exit {killed.returncode}): {killed.stderr[-1500:]}"
    )
    at_kill = state_in_journal(journal_url, key)
    again = run(env, "launch", str(path), "--json")
    assert again.returncode == 0, f"{moment.name}: rerun failed: {again.stderr[-2000:]}"
    result = json.loads(again.stdout)
    after = stats(sandbox)["launches"]
    token = web.get(f"{sandbox.base_url}/tokens/{result['mint']}").json()["data"]
    print(
        f"\ncrash matrix: {moment.step} {moment.when}: killed at {at_kill} -> "
        f"{result['state']}, {after['created']} create(s), {after['mintsOnChain']} mint, "
        f"{after['registered']} registration"
    )
    assert result["state"] == "registered", moment.name
    assert (after["mintsOnChain"], after["registered"]) == (1, 1), (moment.name, after)
    assert len(token["launches"]) == 1, moment.name
    # A second create happens only where the first answer was never journaled.
    assert after["created"] == (2 if moment.name == "create: answered, not journaled" else 1)
    # Once more: reported registered, and nothing is created again.
    profile = profile_for(sandbox, tmp_path / "home")
    once_more = asyncio.run(batch([tmp_path / "launches"], profile=profile))
    assert dict(once_more.counts) == {"registered": 1}, once_more
    assert stats(sandbox)["launches"] == after


def test_the_matrix_covers_every_step():
    assert {moment.step for moment in MOMENTS} == {
        "validate",
        "create",
        "sign",
        "submit",
        "confirm",
        "register",
    }
