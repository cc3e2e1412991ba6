"""`launchops sandbox serve --data DIR` killed with SIGKILL in the middle of a batch and
started again on the same folder and port: the batch rides over the outage, and nothing
the sandbox had acknowledged is lost (chain state, agent listing, launches)."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
from typing import Any

import httpx

import launchops.web as web
from launchops import retries
from launchops.api.client import AsyncServiceClient
from launchops.chain.rpc import ChainRpc
from launchops.journal.store import Journal, LaunchRecord
from launchops.retries import RPC_CALLS, SERVICE_CALLS
from launchops.sandbox.process import serving
from tests.support.cut import relay
from tests.support.pipeline import profile_env, profile_for, started, stats, write_launch

LAUNCHES = 12


def records(journal_url: str) -> list[LaunchRecord]:
    async def read() -> list[LaunchRecord]:
        journal = await Journal.open(journal_url)
        try:
            return [await journal.get(f"restart-{i:02d}") for i in range(LAUNCHES)]  # type: ignore[misc]
        finally:
            await journal.close()

    return [r for r in asyncio.run(read()) if r is not None]


def rpc(url: str, method: str, params: list) -> object:
    answer = web.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return answer.json()["result"]


def test_a_sandbox_killed_and_restarted_mid_batch_loses_nothing(tmp_path, prefect_env):
    data, home, folder = tmp_path / "sandbox", tmp_path / "home", tmp_path / "launches"
    for index in range(LAUNCHES):
        write_launch(folder, f"restart-{index:02d}.yaml", key=f"restart-{index:02d}")
    with serving("--slot-ms", "50", "--seed-agents", "5", data=data) as first:
        port = first.port
        env = profile_env(first, home, **prefect_env)
        journal_url = profile_for(first, home).journal
        batch = started(env, "batch", str(folder), "--json", "--concurrency", "3")
        deadline = time.monotonic() + 180
        while stats(first)["launches"]["registered"] < 3:
            assert batch.poll() is None, batch.stderr.read()[-2000:] if batch.stderr else ""
            assert time.monotonic() < deadline, "the batch made no progress"
            time.sleep(0.1)
        agents = web.get(f"{first.base_url}/agents", params={"pageSize": 100}).json()
        acknowledged = stats(first)
        first.kill(signal.SIGKILL)
    in_flight = [r for r in records(journal_url) if r.state != "registered"]
    done = [r for r in records(journal_url) if r.state == "registered"]
    # The outage the batch rides over: from the kill until the sandbox answers again on
    # its port (its own start, 0.8 s on a quiet machine, several seconds on a loaded one;
    # no sleep added, so a loaded machine does not push it past the clients' 7.1 s window).

    with serving("--slot-ms", "50", data=data, port=port) as second:
        assert_kept(second, agents, acknowledged, done)
        out, err = batch.communicate(timeout=300)
        assert batch.returncode == 0, err[-3000:]
        assert json.loads(out)["counts"] == {"registered": LAUNCHES}
        after = stats(second)["launches"]
        assert after["registered"] == LAUNCHES and after["mintsOnChain"] == LAUNCHES
        mints = {str(r.registered.mint) for r in records(journal_url)}
        assert len(mints) == LAUNCHES
    print(
        f"\nsandbox restart: killed with {len(done)} registered and {len(in_flight)} not yet "
        f"({sorted({r.state for r in in_flight})}); after: {after}"
    )
    assert in_flight, "the kill came after the batch had finished"


def assert_kept(second: Any, agents: Any, acknowledged: dict[str, Any], done: list[Any]) -> None:
    """Everything the sandbox acknowledged before the kill is there after its restart: the
    agents, the slot, and each registered launch's token, mint and transactions."""
    assert web.get(f"{second.base_url}/agents", params={"pageSize": 100}).json() == agents
    assert stats(second)["chain"]["slot"] > acknowledged["chain"]["slot"]
    for record in done:
        mint = str(record.registered.mint)
        token = web.get(f"{second.base_url}/tokens/{mint}").json()["data"]
        assert [launch["genesisAddress"] for launch in token["launches"]] == [record.genesis]
        assert rpc(second.rpc_url, "getAccountInfo", [mint, {"encoding": "base64"}])["value"]
        statuses = rpc(
            second.rpc_url,
            "getSignatureStatuses",
            [record.signatures, {"searchTransactionHistory": True}],
        )["value"]
        assert all(s and s["err"] is None for s in statuses)


OUTAGE = 5.0  # seconds the port refuses, against a least window of 7.1 s


def test_the_clients_ride_over_a_short_outage_even_with_the_worst_jitter(tmp_path, monkeypatch):
    """The service client and ChainRpc own their retries (no Prefect task retry behind
    them): with every random wait at its least, they still cover a sandbox that is down for
    a few seconds, killed and started again.

    The outage the clients meet is held to OUTAGE whatever the machine's load: the sandbox
    is started again on its folder at once, on a port of its own, and the port the clients
    call refuses connections (as a killed sandbox's does) until a relay to the new one takes
    it after OUTAGE. Started again on the same port instead, the outage is OUTAGE plus the
    sandbox's own start, which on a loaded 2-core machine passed the window."""
    least = min(SERVICE_CALLS.window()[0], RPC_CALLS.window()[0])
    assert least >= 7 and least > OUTAGE + 1
    monkeypatch.setattr(retries._JITTER, "uniform", lambda low, high: low)
    data = tmp_path / "sandbox"
    with serving("--slot-ms", "50", data=data) as first:
        port, base_url, rpc_url = first.port, first.base_url, first.rpc_url
        first.kill(signal.SIGKILL)
    up, finished = threading.Event(), threading.Event()

    def restart() -> None:
        with serving("--slot-ms", "50", data=data) as second:
            up.set()
            time.sleep(OUTAGE)
            with relay("127.0.0.1", second.port, listen_on=port):
                finished.wait(60)

    thread = threading.Thread(target=restart)
    thread.start()

    async def calls() -> tuple[int, int]:
        rpc = ChainRpc(rpc_url)
        try:
            async with AsyncServiceClient(base_url) as service:
                page, height = await asyncio.gather(service.list_agents(), rpc.block_height())
            return page.total, height
        finally:
            await rpc.close()

    try:
        assert up.wait(120), "the sandbox did not start again on its folder"
        with httpx.Client() as probe:  # the port refuses, as a killed sandbox's does
            for url in (base_url, rpc_url):
                try:
                    probe.get(url)
                    raise AssertionError(f"{url} answered with nothing serving it")
                except httpx.ConnectError:
                    pass
        started = time.monotonic()
        agents, height = asyncio.run(calls())
    finally:
        finished.set()
        thread.join()
    assert agents >= 0 and height > 0
    assert time.monotonic() - started > OUTAGE  # they did meet the outage
