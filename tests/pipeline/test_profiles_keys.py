"""Profiles (built-in < file < environment), keypair sources (the secret never echoed), a
Prefect Secret block as the key, and the embedded sandbox a fresh user gets."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import warnings
from pathlib import Path

import base58
import pytest
from solders.keypair import Keypair

from launchops.api.errors import InvalidInputError
from launchops.chain.keys import KeypairError, KeypairPermissionWarning, load_keypair
from launchops.config.profiles import load_profile
from launchops.pipeline.embedded import sandbox_running
from launchops.sandbox import rpc_faults
from launchops.sandbox.process import free_port
from tests.support import forks
from tests.support.pipeline import aim_flows_at, set_faults, write_launch


def test_profiles_resolve_built_in_then_file_then_environment(tmp_path, monkeypatch):
    assert (
        load_profile("mainnet").requires_yes and load_profile("devnet").network == "solana-devnet"
    )
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(
        "profiles:\n  devnet:\n    commitment: finalized\n    concurrency: 3\n  mine:\n"
        "    base_url: http://x/v1\n    rpc_url: http://x\n    keypair: env:K\n"
    )
    devnet = load_profile("devnet", profiles_file=profiles)
    assert (devnet.commitment, devnet.concurrency, devnet.rpc_url) == (
        "finalized",
        3,
        "https://api.devnet.solana.com",
    )
    monkeypatch.setenv("LAUNCHOPS_CONCURRENCY", "11")
    assert load_profile("devnet", profiles_file=profiles).concurrency == 11
    assert load_profile("mine", profiles_file=profiles).base_url == "http://x/v1"
    with pytest.raises(InvalidInputError) as caught:
        load_profile("nope", profiles_file=profiles)
    assert "unknown profile 'nope'" in caught.value.problems[0][1]
    profiles.write_text("profiles:\n  devnet:\n    commitment: eventually\n")
    with pytest.raises(InvalidInputError) as caught:
        load_profile("devnet", profiles_file=profiles)
    assert caught.value.problems[0][0] == f"{profiles}: profiles.devnet.commitment"
    profiles.write_text("profiles:\n  devnet:\n    concurrency: 3\n")
    monkeypatch.setenv("LAUNCHOPS_CONCURRENCY", "many")  # it wins: named, not the file
    with pytest.raises(InvalidInputError) as caught:
        load_profile("devnet", profiles_file=profiles)
    assert [field for field, _ in caught.value.problems] == ["LAUNCHOPS_CONCURRENCY"]


@pytest.mark.parametrize(
    ("text", "field", "says"),
    [
        ("profiles: [1, 2]\n", "{path}: profiles", "must map each profile's name to its fields"),
        ("- a\n- b\n", "{path}", "must be profiles: {NAME: {field: value}}"),
        ("profiles:\n  devnet: 3\n", "{path}: profiles.devnet", "must be a mapping of its"),
        ("profiles:\n  devnet:\n    concurency: 3\n", "{path}: profiles.devnet.concurency", ""),
    ],
)
def test_a_profiles_file_of_another_shape_is_named(tmp_path, text, field, says):
    profiles = tmp_path / "profiles.yaml"
    profiles.write_text(text)
    with pytest.raises(InvalidInputError) as caught:  # was an AttributeError for a list
        load_profile("devnet", profiles_file=profiles)
    [(where, why)] = caught.value.problems
    assert where == field.format(path=profiles) and says in why, (where, why)


def test_keypair_sources(tmp_path, monkeypatch):
    keypair = Keypair()
    path = tmp_path / "id.json"
    path.write_text(json.dumps(list(bytes(keypair))))
    path.chmod(0o600)
    assert load_keypair(f"file:{path}", state_dir=tmp_path).pubkey() == keypair.pubkey()
    monkeypatch.setenv("CREATOR", base58.b58encode(bytes(keypair)).decode())
    assert load_keypair("env:CREATOR", state_dir=tmp_path).pubkey() == keypair.pubkey()
    sandbox_key = load_keypair("sandbox", state_dir=tmp_path)
    assert load_keypair("sandbox", state_dir=tmp_path).pubkey() == sandbox_key.pubkey()
    assert oct((tmp_path / "sandbox-keypair.json").stat().st_mode & 0o777) == "0o600"
    path.chmod(0o644)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        load_keypair(f"file:{path}", state_dir=tmp_path)
    assert any(
        issubclass(w.category, KeypairPermissionWarning) and "chmod 600" in str(w.message)
        for w in seen
    )


def test_a_bad_key_is_refused_without_echoing_it(tmp_path, monkeypatch):
    almost = base58.b58encode(bytes(Keypair())[:63]).decode()
    monkeypatch.setenv("CREATOR", almost)
    with pytest.raises(KeypairError) as caught:
        load_keypair("env:CREATOR", state_dir=tmp_path)
    assert almost not in str(caught.value) and "CREATOR is not a keypair" in str(caught.value)
    with pytest.raises(KeypairError, match="needs Prefect"):
        load_keypair("prefect-secret:creator", state_dir=tmp_path)
    with pytest.raises(KeypairError, match="cannot read keypair file"):
        load_keypair(f"file:{tmp_path / 'absent.json'}", state_dir=tmp_path)


async def test_a_keypair_in_a_prefect_secret_block(
    sandbox_factory, tmp_path, monkeypatch, prefect_server
):
    from launchops.flows.launch import launch_flow
    from prefect.blocks.system import Secret
    from solana.rpc.async_api import AsyncClient

    from tests.support.solana import wait_for

    sandbox = sandbox_factory()
    keypair = Keypair()
    await Secret(value=json.dumps(list(bytes(keypair)))).save("launch-creator", overwrite=True)
    async with AsyncClient(sandbox.rpc_url) as rpc:
        await wait_for(rpc, (await rpc.request_airdrop(keypair.pubkey(), 10 * 10**9)).value)
    aim_flows_at(monkeypatch, sandbox, tmp_path, LAUNCHOPS_KEYPAIR="prefect-secret:launch-creator")
    result = await launch_flow(path=str(write_launch(tmp_path, key="secret-block")))
    assert result.state == "registered"
    import launchops.web as web

    token = web.get(f"{sandbox.base_url}/tokens/{result.mint}").json()["data"]
    assert token["launches"] and result.mint


def test_the_sandbox_profile_starts_a_sandbox_when_none_runs(tmp_path):
    port = free_port()  # below the kernel's ephemeral range, its next port free too
    env = {
        **os.environ,
        "LAUNCHOPS_HOME": str(tmp_path / "home"),
        "LAUNCHOPS_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "LAUNCHOPS_RPC_URL": f"http://127.0.0.1:{port}",
        "LAUNCHOPS_SANDBOX_SLOT_MS": "20",
    }
    command = [
        sys.executable,
        "-m",
        "launchops.cli",
        "launch",
        str(write_launch(tmp_path, key="embedded")),
        "--no-prefect",
        "--json",
    ]
    first_run = forks.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert first_run.returncode == 0, first_run.stderr[-2000:]
    result = json.loads(first_run.stdout)
    assert result["state"] == "registered" and result["launchPage"].startswith(
        f"http://127.0.0.1:{port}/"
    )
    assert (tmp_path / "home" / "sandbox" / "sandbox-chain" / "sandbox.db").exists()
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    reported = json.loads(again.stdout)  # the chain was kept: the same launch, reported
    assert reported.pop("fromJournal") is True and result.pop("fromJournal") is False
    assert reported == result


def _embedded_env(tmp_path, rpc_url, base_url):
    return {
        **os.environ,
        "LAUNCHOPS_HOME": str(tmp_path / "home"),
        "LAUNCHOPS_BASE_URL": base_url,
        "LAUNCHOPS_RPC_URL": rpc_url,
    }


def _refused_in_one_line(
    env: dict[str, str], file: Path, driver: str
) -> subprocess.CompletedProcess[str]:
    """`launchops launch FILE DRIVER`, refused (exit 1) with one line and no traceback."""
    run = forks.run(
        [sys.executable, "-m", "launchops.cli", "launch", str(file), driver],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
    return run


@pytest.mark.parametrize("driver", ["--no-prefect", "--json"])
def test_a_wrong_rpc_url_beside_a_running_sandbox_is_one_clear_line(sandbox, tmp_path, driver):
    env = _embedded_env(tmp_path, f"{sandbox.url}/rpc", sandbox.base_url)
    run = _refused_in_one_line(env, write_launch(tmp_path, key="wrong-url"), driver)
    assert "a launchops sandbox" in run.stderr and f"LAUNCHOPS_RPC_URL={sandbox.url}" in run.stderr


def test_a_sandbox_answering_late_is_still_the_sandbox(sandbox_factory):
    """A sandbox busy with another process's batch answers late; the next command uses it
    and does not try to start one on its port (a late answer is not an absence)."""
    sandbox = sandbox_factory()
    set_faults(sandbox, latency_ms=1500)
    try:
        assert sandbox_running(sandbox.url)
    finally:
        set_faults(sandbox, latency_ms=0)


# The probe's bound: getHealth asked with 1, 2 and 4 s to answer and 0.2-0.6 s between
# refusals, then the admin surface with 2 s; checked with room for a loaded machine (what
# it must never do is wait out a held answer, 600 s).
PROBE_BOUND = (1 + 2 + 4) + (0.2 + 0.4 + 0.6) + 2


def test_a_sandbox_there_is_found_whatever_its_rpc_answers_and_within_the_bound(
    sandbox_factory,
):
    """The rule under `sandbox_running`, over faults composed at random: a sandbox that
    answers within the probe's waits is found (never taken for an absence, so no second one
    is started on its port), whatever its RPC answers getHealth with first: late, refused,
    an error, a proxy's page, or nothing at all; and the probe ends within its bound."""
    mix = random.Random()
    seed = mix.randrange(2**32)
    mix.seed(seed)
    sandbox = sandbox_factory(seed=seed)
    names = sorted(rpc_faults.REFUSALS | rpc_faults.OUTAGES)
    for _ in range(5):
        faults = {
            "latency_ms": mix.choice([0, mix.randrange(0, 1500)]),
            "rpc_error_rate": mix.choice([0.0, mix.random()]),
            "error_status": mix.choice([429, 503, "mixed"]),
            "rpc_fault_next": {f"{mix.choice(names)}@getHealth": mix.randrange(0, 4)},
        }
        set_faults(sandbox, **faults)
        started = time.monotonic()
        try:
            found = sandbox_running(sandbox.url)
        finally:
            set_faults(sandbox, latency_ms=0, rpc_error_rate=0.0, rpc_fault_next={})
        took = time.monotonic() - started
        assert found, f"seed {seed}: a sandbox with {faults} was taken for none"
        assert took < PROBE_BOUND + 5, f"seed {seed}: {faults} took {took:.1f} s"


def test_a_port_taken_by_something_else_is_named(tmp_path):
    import socket

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        env = _embedded_env(tmp_path, f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/v1")
        run = _refused_in_one_line(env, write_launch(tmp_path, key="taken"), "--no-prefect")
    assert f"127.0.0.1:{port}" in run.stderr and "LAUNCHOPS_RPC_URL" in run.stderr


def test_the_printed_sandbox_launch_page_opens_as_printed(tmp_path):
    """The embedded sandbox stops with the command; the panel says how to serve its chain
    again, and the link then works exactly as printed."""
    import re
    import time

    import httpx

    import launchops.web as web

    port = free_port()  # below the kernel's ephemeral range, its next port free too
    env = _embedded_env(tmp_path, f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/v1")
    env["LAUNCHOPS_SANDBOX_SLOT_MS"] = "20"
    env["COLUMNS"] = "200"
    file = str(write_launch(tmp_path, key="page"))
    run = forks.run(
        [sys.executable, "-m", "launchops.cli", "launch", file, "--no-prefect"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    link = re.search(r"launch page\s+(\S+)", run.stdout).group(1)
    hint = re.search(r"`(launchops sandbox serve[^`]*)`", run.stdout).group(1)
    with pytest.raises(httpx.TransportError):
        web.get(link, timeout=2)  # the sandbox stopped with the command
    server = subprocess.Popen(
        [sys.executable, "-m", "launchops.cli", *hint.split()[1:]],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = web.get(link, timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read()
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert page.status_code == 200 and "Pipeline Token (PIPE)" in page.text
    finally:
        server.terminate()
        server.wait(timeout=30)
