"""The README's "After the launch" Python, run as written against the sandbox the
sandbox profile starts: an agent minted once, a claim of the profile's wallet."""

from __future__ import annotations

import os

from tests.support.pipeline import run_python
from tests.test_readme_python import python_blocks


def test_the_after_launch_python_runs_as_written(tmp_path):
    from tests.support.prefect_pool import free_port

    [block] = python_blocks("After the launch: agents, creator rewards, launch status")
    script = block + "\nagain = launchops.mint_agent_sync('configs/agent.yaml')\n"
    script += "assert again == agent and agent.finished and claim.finished, (agent, claim)\n"
    script += "print('README OK', agent.asset)\n"
    port = free_port()
    env = {
        **os.environ,
        "LAUNCHOPS_HOME": str(tmp_path / "home"),
        "LAUNCHOPS_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "LAUNCHOPS_RPC_URL": f"http://127.0.0.1:{port}",
        "LAUNCHOPS_SANDBOX_SLOT_MS": "50",
    }
    out = run_python(script, env)
    assert "README OK" in out, out[-2000:]
