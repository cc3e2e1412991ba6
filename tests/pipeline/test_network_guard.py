"""The network guard and `launchops check`, with a public-service profile pointed at the
sandbox: its RPC's genesis hash must be the profile's network's (the sandbox's `cluster`
setting says which it answers), else a one-line refusal naming both, exit 2, nothing sent;
a profile may name another genesis hash on purpose."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from solders.keypair import Keypair

import launchops.web as web
from launchops.api.programs import GENESIS_HASHES
from launchops.errors import WrongCluster
from launchops.pipeline.runner import run_launch, validate
from launchops.sandbox.faults import Faults
from tests.support.pipeline import (
    context_for,
    dump_yaml,
    embedded_env,
    launchops,
    profile_env,
    set_faults,
    stats,
    write_launch,
)


def reset(sandbox) -> None:
    web.post(f"{sandbox.url}/_sandbox/stats/reset").raise_for_status()


async def test_a_public_profile_on_its_own_cluster_launches(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path, service="public") as ctx:
        key = (await validate(ctx, write_launch(tmp_path, form="presale", key="on-net"))).key
        record = await run_launch(ctx, key)
    assert record.state == "registered", record.last_error
    assert stats(sandbox)["rpc"]["getGenesisHash"] == 1


async def test_the_wrong_cluster_is_refused_before_anything_is_sent(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()  # it answers mainnet-beta's genesis hash
    reset(sandbox)
    with pytest.raises(WrongCluster) as refused:
        async with context_for(sandbox, tmp_path, service="public", network="solana-devnet"):
            raise AssertionError("the context opened")
    message = str(refused.value)
    assert "\n" not in message
    assert "solana-devnet" in message and "devnet (genesis EtWTRA…)" in message
    assert "mainnet-beta (genesis 5eykt4…)" in message and "nothing was sent" in message
    served = stats(sandbox)
    assert served["api"] == {} and served["rpc"] == {"getGenesisHash": 1}


@pytest.mark.parametrize("how", ["the sandbox's cluster setting", "the profile's genesis_hash"])
async def test_devnet_passes_when_the_cluster_is_devnet_or_named(sandbox_factory, tmp_path, how):
    if how == "the sandbox's cluster setting":
        sandbox, extra = sandbox_factory(faults=Faults(cluster="devnet")), {}
    else:
        sandbox, extra = sandbox_factory(), {"genesis_hash": GENESIS_HASHES["mainnet-beta"]}
    path = write_launch(tmp_path, form="presale", key="devnet-ok", network="solana-devnet")
    async with context_for(
        sandbox, tmp_path, service="public", network="solana-devnet", **extra
    ) as ctx:
        record = await run_launch(ctx, (await validate(ctx, path)).key)
    assert record.state == "registered" and record.network == "solana-devnet"


async def test_the_sandbox_profile_is_not_guarded(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(faults=Faults(cluster="testnet"))
    async with context_for(sandbox, tmp_path) as ctx:  # service: sandbox (every network)
        assert ctx.profile.service == "sandbox"
    assert "getGenesisHash" not in stats(sandbox)["rpc"]


def write_profiles(home, sandbox, key_file, network: str = "solana-devnet") -> None:
    home.mkdir(parents=True, exist_ok=True)
    profile = {
        "base_url": sandbox.base_url,
        "rpc_url": sandbox.rpc_url,
        "network": network,
        "keypair": f"file:{key_file}",
        "poll_seconds": 0.02,
        "rebroadcast_seconds": 0.3,
    }
    (home / "profiles.yaml").write_text(dump_yaml({"profiles": {"mine": profile}}))


def key_file(tmp_path) -> tuple:
    keypair = Keypair()
    path = tmp_path / "id.json"
    path.write_text(json.dumps(list(bytes(keypair))))
    path.chmod(0o600)
    return keypair, path


def user_env(sandbox, home) -> dict[str, str]:
    """A user's environment: only the profiles file says where the service is."""
    env = profile_env(sandbox, home)
    for name in ("LAUNCHOPS_BASE_URL", "LAUNCHOPS_RPC_URL", "LAUNCHOPS_EMBEDDED_SANDBOX"):
        env.pop(name)
    return env


@pytest.mark.parametrize("driver", ["--no-prefect", "prefect"])
def test_the_command_refuses_the_wrong_cluster_with_exit_2(
    sandbox_factory, tmp_path, driver, request
):
    sandbox = sandbox_factory()
    home = tmp_path / "home"
    _, path = key_file(tmp_path)
    write_profiles(home, sandbox, path)
    env = user_env(sandbox, home)
    if driver == "prefect":
        env.update(request.getfixturevalue("prefect_env"))
    launch = write_launch(tmp_path, form="presale", key="guarded", network="solana-devnet")
    reset(sandbox)
    args = ["launch", str(launch), "--profile", "mine", "--json"]  # no step board
    result = launchops(env, *args, *([driver] if driver != "prefect" else []))
    assert result.returncode == 2, result.stderr[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: profile mine sends to solana-devnet")
    assert "mainnet-beta" in lines[0] and "Traceback" not in result.stderr
    assert stats(sandbox)["api"] == {}  # nothing created, nothing sent
    assert set(stats(sandbox)["rpc"]) == {"getGenesisHash"}


def test_check_names_each_problem_and_passes_once_fixed(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(seed_agents=2, seed=1)
    home = tmp_path / "home"
    keypair, path = key_file(tmp_path)
    write_profiles(home, sandbox, path)
    env = user_env(sandbox, home)
    first = launchops(env, "check", "--profile", "mine", "--json")
    assert first.returncode == 1, first.stderr
    found = {c["check"]: c for c in json.loads(first.stdout)["checks"]}
    assert list(found) == ["service", "cluster", "key", "journal"]
    assert found["service"]["ok"] and found["journal"]["ok"]
    assert not found["cluster"]["ok"] and "mainnet-beta" in found["cluster"]["detail"]
    assert not found["key"]["ok"] and str(keypair.pubkey()) in found["key"]["detail"]
    assert "fund it" in found["key"]["detail"]
    set_faults(sandbox, cluster="devnet")
    web.post(
        sandbox.rpc_url,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "requestAirdrop",
            "params": [str(keypair.pubkey()), 1_500_000_000],
        },
    ).raise_for_status()
    second = launchops(env, "check", "--profile", "mine")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1.5 SOL" in second.stdout and "devnet" in second.stdout
    assert second.stdout.count("ok ") == 4
    secret = bytes(keypair)
    for text in (first.stdout, second.stdout):
        assert json.dumps(list(secret)) not in text and str(keypair) not in text


def test_check_says_how_to_start_a_missing_sandbox(tmp_path):
    gone = SimpleNamespace(base_url="http://127.0.0.1:9/v1", rpc_url="http://127.0.0.1:9")
    env = profile_env(gone, tmp_path)  # nothing listens there
    result = launchops(env, "check", "--json")
    assert result.returncode == 1
    found = {c["check"]: c for c in json.loads(result.stdout)["checks"]}
    assert "launchops sandbox serve" in found["service"]["detail"]
    assert not found["cluster"]["ok"] and found["journal"]["ok"]


def test_check_on_a_fresh_home_starts_the_embedded_sandbox(tmp_path):
    """The sandbox profile with nothing running and nothing kept: `check` starts the
    embedded sandbox, as every other command does, finds everything ok, and stops it."""
    from launchops.pipeline.embedded import sandbox_running

    env = embedded_env(tmp_path / "home")
    result = launchops(env, "check")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("profile sandbox (a sandbox: a local chain, no real funds"), lines
    assert [line.split()[:2] for line in lines[1:]] == [
        ["ok", "service"],
        ["ok", "cluster"],
        ["ok", "key"],
        ["ok", "journal"],
    ], result.stdout
    assert "the sandbox's faucet funds it" in lines[3], lines
    assert not sandbox_running(env["LAUNCHOPS_RPC_URL"], tries=1)  # stopped with the command


async def test_a_flow_started_elsewhere_is_guarded_too(
    sandbox_factory, tmp_path, monkeypatch, prefect_server
):
    """A deployment's run (no command before it) meets the guard in its flow's context."""
    from launchops.flows.launch import launch_flow

    sandbox = sandbox_factory()
    home = tmp_path / "home"
    _, path = key_file(tmp_path)
    write_profiles(home, sandbox, path)
    monkeypatch.setenv("LAUNCHOPS_HOME", str(home))
    launch = write_launch(tmp_path, form="presale", key="flow-guarded", network="solana-devnet")
    reset(sandbox)
    with pytest.raises(WrongCluster, match="sends to solana-devnet"):
        await launch_flow(str(launch), None, "mine")
    assert stats(sandbox)["api"] == {} and set(stats(sandbox)["rpc"]) == {"getGenesisHash"}
