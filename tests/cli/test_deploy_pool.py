"""`launchops deploy --pool` with no Prefect server to point at refuses in one line."""

from __future__ import annotations

import os

from tests.support.pipeline import launchops


def test_deploy_pool_without_a_server_refuses_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(PREFECT_HOME=str(tmp_path / "prefect"), LAUNCHOPS_HOME=str(tmp_path / "home"))
    done = launchops(env, "deploy", "--pool", "launchops", timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "no PREFECT_API_URL is set" in lines[0] and "PREFECT_API_URL" in lines[0]
