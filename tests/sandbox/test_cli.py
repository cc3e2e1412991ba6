"""`launchops sandbox ...` as a user runs it: serve in a subprocess, seed, faults, stats;
and a `serve --data` killed with SIGKILL comes back with everything it acknowledged."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import launchops.web as web
from launchops.sandbox.process import ServedSandbox, serving
from tests.sandbox.test_persistence import launch_on
from tests.support import forks


def launchops(*args: str) -> subprocess.CompletedProcess[str]:
    return forks.run(
        [sys.executable, "-m", "launchops.cli", *args], capture_output=True, text=True, timeout=60
    )


@contextmanager
def serve(
    *args: str, data: Path | None = None
) -> Iterator[tuple[ServedSandbox, subprocess.Popen[str]]]:
    with serving(*args, data=data, capture=True) as served:
        yield served, served.process


def test_serve_seed_faults_stats():
    with serve("--slot-ms", "0", "--seed-agents", "3", "--fault", "latency_ms=1") as (
        served,
        process,
    ):
        url = ["--url", served.url]
        assert (
            json.loads(
                launchops("agents", "list", "--json", "--base-url", served.base_url).stdout
            ).__len__()
            == 3
        )
        seeded = launchops("sandbox", "seed", "--agents", "2", "--json", *url)
        assert len(json.loads(seeded.stdout)) == 2
        changed = json.loads(launchops("sandbox", "faults", "--set", "drop_rate=0.25", *url).stdout)
        assert changed["drop_rate"] == 0.25 and changed["latency_ms"] == 1
        bad = launchops("sandbox", "faults", "--set", "drop_rate=7", *url)
        assert bad.returncode == 1 and "drop_rate" in bad.stderr and "Traceback" not in bad.stderr
        assert json.loads(launchops("sandbox", "faults", "--clear", *url).stdout)["drop_rate"] == 0
        for option, value in (("--owner", "xyz"), ("--network", "solana-testnet")):
            refused = launchops("sandbox", "seed", option, value, *url)
            assert refused.returncode == 1 and refused.stdout == "", refused.stdout
            assert refused.stderr.startswith(f"error: {option}: must be"), refused.stderr
        not_admin = launchops("sandbox", "seed", "--url", served.base_url)  # /v1: no admin
        assert not_admin.stderr == "error: 404 Not found\n", not_admin.stderr
        stats = json.loads(launchops("sandbox", "stats", "--json", *url).stdout)
        assert stats["api"]["GET /v1/agents"] == 1 and stats["launches"]["agents"] == 5
        os.killpg(process.pid, signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert "Traceback" not in process.stderr.read()


def test_serve_refuses_a_busy_port():
    with serve("--slot-ms", "0") as (served, _):
        again = launchops("sandbox", "serve", "--port", str(served.port))
        assert again.returncode == 1 and "pick another --port" in again.stderr


def test_serve_names_the_option_to_change():
    """A host that is not this machine's (an address, a name that does not resolve) names
    --host; a port past 65534 (PubSub takes the next) is refused before anything binds."""
    for host in ("192.0.2.1", "no-such-host.invalid"):  # TEST-NET-1: never this machine's
        done = launchops("sandbox", "serve", "--fresh", "--host", host, "--port", "0")
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert "--host must be an address of this machine" in done.stderr, done.stderr
    done = launchops("sandbox", "serve", "--fresh", "--port", "70000")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "less than or equal to 65534" in done.stderr, done.stderr


def test_sigkill_then_restart_on_the_same_data_loses_nothing(tmp_path):
    import asyncio

    with serve("--slot-ms", "20", "--seed-agents", "2", data=tmp_path) as (served, process):
        before = asyncio.run(launch_on(served))
        agents = web.get(f"{served.base_url}/agents").json()["data"]["agents"]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)
    with serve("--slot-ms", "20", data=tmp_path) as (served, _):
        assert web.get(f"{served.base_url}/agents").json()["data"]["agents"] == agents
        mint = str(before["created"].mint_address)
        token = web.get(f"{served.base_url}/tokens/{mint}").json()["data"]
        assert token["launches"][0]["genesisAddress"] == str(before["created"].genesis_account)
        statuses = web.post(
            served.rpc_url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "getSignatureStatuses",
                "params": [
                    [str(s) for s in before["signatures"]],
                    {"searchTransactionHistory": True},
                ],
            },
        ).json()
        assert all(s is not None for s in statuses["result"]["value"])
        after = asyncio.run(launch_on(served))
        assert after["registered"].token.mint_address != before["registered"].token.mint_address
