"""The service and the RPC are one chain: `--base-url` pointing at a second sandbox takes
that sandbox's RPC (the one it announces), unless an RPC is given; `check` says whether
the RPC is the service's chain. The CLI in subprocesses, as the README writes it."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.support.pipeline import launchops, profile_env, stats, write_launch


@pytest.fixture
def two(sandbox_factory, tmp_path):
    """A sandbox the profile names (base and RPC), a second one, and the environment."""
    first, second = sandbox_factory(), sandbox_factory()
    home = tmp_path / "home"
    home.mkdir()
    profile = {"base_url": first.base_url, "rpc_url": first.rpc_url, "embedded_sandbox": False}
    (home / "profiles.yaml").write_text(yaml.safe_dump({"profiles": {"sandbox": profile}}))
    env = profile_env(first, home)
    for name in ("LAUNCHOPS_BASE_URL", "LAUNCHOPS_RPC_URL", "LAUNCHOPS_EMBEDDED_SANDBOX"):
        env.pop(name)
    return first, second, env


def _cluster_line(output: str) -> str:
    [line] = [line for line in output.splitlines() if " cluster " in f" {line} "]
    return line


def test_base_url_of_a_second_sandbox_launches_on_its_chain(two, tmp_path, prefect_env):
    first, second, env = two
    checked = launchops(env, "check", "--base-url", second.base_url)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    line = _cluster_line(checked.stdout)
    assert line.startswith("ok") and second.rpc_url in line and "same node identity" in line

    launch = write_launch(tmp_path / "launches", key="second-chain")
    result = launchops(
        {**env, **prefect_env}, "launch", str(launch), "--base-url", second.base_url, "--json"
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout)["state"] == "registered"
    assert stats(second)["launches"]["registered"] == 1
    assert stats(first)["launches"]["created"] == 0


def test_check_says_when_the_rpc_given_is_another_chain(two):
    first, second, env = two
    env = {**env, "LAUNCHOPS_RPC_URL": first.rpc_url}  # given: kept, and checked
    checked = launchops(env, "check", "--base-url", second.base_url)
    assert checked.returncode == 1
    line = _cluster_line(checked.stdout)
    assert line.startswith("FIX") and "is another chain than the service's" in line
    assert second.rpc_url in line and "LAUNCHOPS_RPC_URL" in line
    as_json = json.loads(launchops(env, "check", "--base-url", second.base_url, "--json").stdout)
    [cluster] = [c for c in as_json["checks"] if c["check"] == "cluster"]
    assert cluster["ok"] is False


def test_the_profiles_own_sandbox_is_one_chain(two):
    first, _, env = two
    checked = launchops(env, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert first.rpc_url in _cluster_line(checked.stdout)


def test_a_sandbox_keeps_its_identity_with_its_chain(tmp_path):
    import launchops.web as web
    from launchops.sandbox.server import Sandbox, SandboxConfig

    def identity(sandbox: Sandbox) -> tuple[str, str]:
        info = web.get(f"{sandbox.url}/_sandbox/info").json()
        body = {"jsonrpc": "2.0", "id": 1, "method": "getIdentity"}
        answered = web.post(sandbox.rpc_url, json=body).json()["result"]["identity"]
        assert info["rpcUrl"] == sandbox.rpc_url
        return info["identity"], answered

    config = {"port": 0, "slot_ms": 0, "data_dir": tmp_path / "chain"}
    with Sandbox(SandboxConfig(**config)) as kept:
        before = identity(kept)
    with Sandbox(SandboxConfig(**config)) as restarted, Sandbox(SandboxConfig(port=0)) as other:
        assert identity(restarted) == before and before[0] == before[1]
        assert identity(other)[0] != before[0]
