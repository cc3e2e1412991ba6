"""Every command on the sandbox profile starts the embedded sandbox as `launch` does, on
the profile's kept chain; `sandbox serve` serves that chain by default (`--fresh`: a
throwaway one); a fresh sandbox's `agents list` says how to fill it, and `sandbox seed`
fills it with agents the README's own search finds."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import launchops.web as web
from launchops.sandbox.process import ServedSandbox, free_port
from tests.support import forks
from tests.support.pipeline import write_launch
from tests.test_readme_commands import command_lines

SEARCH = next(
    line for line, _ in command_lines("Command line") if "agents list --query research" in line
)


def run(env: dict[str, str], command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], env=env, capture_output=True, text=True, timeout=120
    )


def serve(env: dict[str, str], *args: str) -> ServedSandbox:
    port = int(env["LAUNCHOPS_RPC_URL"].rsplit(":", 1)[1])
    process = forks.popen(
        [sys.executable, "-m", "launchops.cli", "sandbox", "serve", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    served = ServedSandbox(port, process)
    try:
        served.wait_until_up()
    except (RuntimeError, TimeoutError):
        served.kill()
        raise AssertionError(process.communicate(timeout=30)) from None
    return served


def test_commands_start_the_profiles_sandbox_and_serve_serves_its_chain(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "LAUNCHOPS_HOME": str(tmp_path / "home"),
        "LAUNCHOPS_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "LAUNCHOPS_RPC_URL": f"http://127.0.0.1:{port}",
        "LAUNCHOPS_SANDBOX_SLOT_MS": "20",
        "PATH": forks.on_path(os.environ["PATH"]),
        "COLUMNS": "100",
    }
    empty = run(env, SEARCH)
    assert empty.returncode == 0, empty.stderr
    assert "0 agents" in empty.stdout and "launchops sandbox seed" in empty.stdout, empty.stdout
    seeded = run(env, "launchops sandbox seed")
    assert seeded.returncode == 0 and "added 10 agents" in seeded.stdout, seeded.stderr
    found = run(env, SEARCH)
    assert found.returncode == 0 and "Atlas Research 1" in found.stdout, found.stdout
    path = write_launch(tmp_path, "kept.yaml", key="kept-chain", symbol="KEPT")
    launched = run(env, f"launchops launch {path} --no-prefect --json")
    assert launched.returncode == 0, launched.stderr[-2000:]
    result = json.loads(launched.stdout)
    token = run(env, f"launchops tokens get {result['mint']} --json")
    assert token.returncode == 0, token.stderr
    assert json.loads(token.stdout)["baseToken"]["symbol"] == "KEPT"
    stats = run(env, "launchops sandbox stats --json")
    assert json.loads(stats.stdout)["launches"]["agents"] == 10, stats.stdout

    served = serve(env)  # as the launch panel says: the kept chain, at the profile's address
    try:
        assert web.get(result["launchPage"], timeout=10).status_code == 200
        assert web.get(f"{served.base_url}/tokens/{result['mint']}").status_code == 200
        listed = run(env, "launchops agents list --json")
        assert len(json.loads(listed.stdout)) == 10, listed.stderr
    finally:
        served.kill()
    fresh = serve(env, "--fresh")
    try:
        assert web.get(f"{fresh.base_url}/tokens/{result['mint']}").status_code == 404
    finally:
        fresh.kill()
    assert "in memory" in fresh.process.communicate(timeout=30)[0]
