"""The crash matrix: a real `launchops launch` process (Prefect flow, one task per step)
SIGKILLs itself at every step boundary and inside every step (after the side effect,
before the journal write), then the same command runs again. Every cell must end with
the launch registered exactly once and exactly one mint on the chain for it.

The kill points are in tests/support/crash.py; the test prints the matrix
(step x moment -> outcome).
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess

import httpx

from launchops.journal.store import Journal
from tests.support.crash import MOMENTS
from tests.support.pipeline import (
    launchops,
    profile_env,
    profile_for,
    set_faults,
    stats,
    write_launch,
)


def run(env: dict[str, str], *args: str, kill: str | None = None) -> subprocess.CompletedProcess:
    return launchops(env, *args, kill=kill, timeout=300)


def state_of(journal_url: str, key: str) -> str:
    async def read() -> str:
        journal = await Journal.open(journal_url)
        try:
            record = await journal.get(key)
        finally:
            await journal.close()
        return record.state if record else "(none)"

    return asyncio.run(read())


def test_sigkill_at_every_step_boundary_and_inside_every_step(
    sandbox_factory, tmp_path, prefect_env
):
    sandbox = sandbox_factory()
    # Status reads come from a node 20 slots behind (each progress call is a slot here).
    set_faults(sandbox, rpc_lag_slots={"getSignatureStatuses": 20})
    env = profile_env(sandbox, tmp_path / "home", **prefect_env)
    journal_url = profile_for(sandbox, tmp_path / "home").journal
    rows = []
    for index, moment in enumerate(MOMENTS):
        key = f"crash-{index:02d}"
        path = write_launch(tmp_path / "launches", f"{key}.yaml", key=key)
        before = stats(sandbox)["launches"]
        killed = run(env, "launch", str(path), "--json", kill=moment.name)
        assert killed.returncode == -signal.SIGKILL, (
            f"{moment.name}: the kill point was never reached "
            f"(exit {killed.returncode}): {killed.stderr[-1500:]}"
        )
        at_kill = state_of(journal_url, key)
        again = run(env, "launch", str(path), "--json")
        assert again.returncode == 0, f"{moment.name}: rerun failed: {again.stderr[-2000:]}"
        result = json.loads(again.stdout)
        after = stats(sandbox)["launches"]
        creates = after["created"] - before["created"]
        mints = after["mintsOnChain"] - before["mintsOnChain"]
        registered = after["registered"] - before["registered"]
        token = httpx.get(f"{sandbox.base_url}/tokens/{result['mint']}").json()["data"]
        rows.append((moment, at_kill, result["state"], creates, mints, registered))
        assert result["state"] == "registered", moment.name
        assert (mints, registered) == (1, 1), f"{moment.name}: {mints} mints, {registered} regs"
        assert len(token["launches"]) == 1, moment.name
        # A second create happens only where the first answer was never journaled.
        assert creates == (2 if moment.name == "create: answered, not journaled" else 1)

    print("\ncrash matrix (step x moment -> journal at kill -> after a re-run):")
    width = max(len(m.when) for m in MOMENTS)
    for moment, at_kill, state, creates, mints, registered in rows:
        print(
            f"  {moment.step:<9} {moment.when:<{width}}  killed at {at_kill:<11} -> {state}, "
            f"{creates} create(s), {mints} mint, {registered} registration"
        )
    # Once more over them all: each is reported registered and nothing is created again.
    before = stats(sandbox)["launches"]
    again = run(env, "batch", str(tmp_path / "launches"), "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["counts"] == {"registered": len(MOMENTS)}
    assert stats(sandbox)["launches"] == before
    steps = {moment.step for moment, *_ in rows}
    assert steps == {"validate", "create", "sign", "submit", "confirm", "register"}
