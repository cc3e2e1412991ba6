"""The README's "After the launch" Python, run as written against the sandbox the
sandbox profile starts: an agent minted once, a claim of the profile's wallet."""

from __future__ import annotations

from tests.support.pipeline import embedded_env, run_python
from tests.test_readme_python import python_blocks


def test_the_after_launch_python_runs_as_written(tmp_path):

    [block] = python_blocks("After the launch: agents, creator rewards, launch status")
    script = block + "\nagain = launchops.mint_agent_sync('configs/agent.yaml')\n"
    script += "assert again.from_journal and again.asset == agent.asset, (again, agent)\n"
    script += "assert agent.finished and claim.finished, (agent, claim)\n"
    script += "print('README OK', agent.asset)\n"
    out = run_python(script, embedded_env(tmp_path / "home"))
    assert "README OK" in out, out[-2000:]
