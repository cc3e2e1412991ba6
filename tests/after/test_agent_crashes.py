"""A mint killed at each step boundary (SIGKILL of a real `launchops agents mint`
process, after each side effect and each journal write), then run again: every cell ends
with exactly one agent, as the sandbox's GET /agents counts them; a third mint (the library
the command runs, in the test's process) answers the same agent and builds nothing."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from pathlib import Path

from launchops.library import mint_agent
from tests.after.test_agents_mint import agents_named, write_agent
from tests.support.crash import AGENT_MOMENTS
from tests.support.pipeline import launchops, profile_env, profile_for, set_faults, stats


def mint(
    env: dict[str, str], path: Path, kill: str | None = None, prefect: bool = False
) -> subprocess.CompletedProcess:
    args = ["agents", "mint", str(path), "--json", *([] if prefect else ["--no-prefect"])]
    return launchops(env, *args, kill=kill, timeout=300)


def test_a_mint_killed_at_each_step_ends_with_one_agent(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    set_faults(sandbox, rpc_lag_slots={"getSignatureStatuses": 5})
    env = profile_env(sandbox, tmp_path / "home")
    rows = []
    for index, moment in enumerate(AGENT_MOMENTS):
        name = f"Crash Agent {index:02d}"
        path = write_agent(tmp_path / "agents", f"crash-{index:02d}", name)
        before = stats(sandbox)["api"].get("POST /v1/agents/mint", 0)
        killed = mint(env, path, kill=moment.name)
        assert killed.returncode == -signal.SIGKILL, (
            f"{moment.name}: the kill point was never reached "
            f"(exit {killed.returncode}): {killed.stderr[-1500:]}"
        )
        again = mint(env, path)
        assert again.returncode == 0, f"{moment.name}: rerun failed: {again.stderr[-2000:]}"
        result = json.loads(again.stdout)
        builds = stats(sandbox)["api"].get("POST /v1/agents/mint", 0) - before
        agents = agents_named(sandbox, name)
        rows.append((moment.name, builds, len(agents)))
        assert agents == [result["asset"]], f"{moment.name}: {agents} for {result}"
        # The service is asked again only where its first answer was never journaled.
        assert builds == (2 if moment.name == "agent build: answered, not journaled" else 1)
        third = asyncio.run(mint_agent(path, profile=profile_for(sandbox, tmp_path / "home")))
        assert third.asset == result["asset"], third
    print("\nagent crash matrix (moment -> builds, agents):")
    for name, builds, count in rows:
        print(f"  {name:<50} {builds} build(s), {count} agent")
    assert stats(sandbox)["api"].get("POST /v1/agents/mint", 0) == len(AGENT_MOMENTS) + 1


THROUGH_PREFECT = (
    "agent build: answered, not journaled",
    "agent submit: sent, not journaled",
    "agent confirm: confirmed on chain, not journaled",
)


def test_a_mint_flow_killed_inside_its_steps_ends_with_one_agent(
    sandbox_factory, tmp_path, prefect_env
):
    """The same through Prefect (the mint-agent flow, one task a step), at the moments
    after a side effect and before its journal write."""
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home", **prefect_env)
    for index, name in enumerate(THROUGH_PREFECT):
        agent = f"Flow Crash Agent {index}"
        path = write_agent(tmp_path / "agents", f"flow-crash-{index}", agent)
        killed = mint(env, path, kill=name, prefect=True)
        assert killed.returncode == -signal.SIGKILL, f"{name}: {killed.stderr[-1500:]}"
        again = mint(env, path, prefect=True)
        assert again.returncode == 0, f"{name}: rerun failed: {again.stderr[-2000:]}"
        assert agents_named(sandbox, agent) == [json.loads(again.stdout)["asset"]], name
