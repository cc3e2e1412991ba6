"""A batch of 20 against an RPC that fails the ways real providers do: about one call in
seven answered HTTP 200 with -32005 "Node is behind by 153 slots" (reads and sends), and a
mix of every transient answer (-32005 with and without `data`, -32004, -32007, -32009,
-32014, -32016, -32603, 502, 504, bodies that are not JSON or are cut short, results of
the wrong shape, numbers out of range, and sends answered blockhash-not-found or
already-processed). Through the plain driver and the Prefect flow, every launch must end
registered once, with one mint each, and none left needing a person."""

from __future__ import annotations

import asyncio

import pytest

from launchops.pipeline.batch import run_batch
from launchops.sandbox.rpc_faults import TRANSIENT_NAMES
from tests.support.pipeline import (
    aim_flows_at,
    context_for,
    set_faults,
    stats,
    write_launch,
)

LAUNCHES = 20
BEHIND = {"behind": 1 / 7}
SEND_ONLY = {"behind@sendTransaction": 0.15}
SENDS = {"blockhash_not_found", "already_processed"}
MIX = {
    **{name: 0.01 for name in sorted(TRANSIENT_NAMES - SENDS)},
    **{f"{name}@sendTransaction": 0.05 for name in sorted(SENDS)},
}
BOUND_SECONDS = 240


def _folder(tmp_path, prefix: str):
    folder = tmp_path / "launches"
    for index in range(LAUNCHES):
        write_launch(folder, f"{prefix}-{index:02d}.yaml", key=f"{prefix}-{index:02d}")
    return folder


def _each_once(sandbox, faults: dict[str, float]) -> None:
    seen = stats(sandbox)
    launches = seen["launches"]
    assert launches["registered"] == LAUNCHES and launches["mintsOnChain"] == LAUNCHES, launches
    refused = [k for k in seen["refused"] if k.split(" ")[-1] in {f.split("@")[0] for f in faults}]
    assert refused, seen["refused"]  # the faults really fired


@pytest.mark.parametrize("faults", [BEHIND, SEND_ONLY, MIX], ids=["behind", "sends", "mix"])
async def test_a_batch_rides_over_a_real_rpcs_errors(sandbox_factory, tmp_path, faults):
    sandbox = sandbox_factory(slot_ms=50, seed=19)
    folder = _folder(tmp_path, "rpc")
    async with context_for(sandbox, tmp_path) as ctx:
        set_faults(sandbox, rpc_faults=faults)  # the faucet's airdrop rides over them too
        rows = await asyncio.wait_for(
            run_batch(ctx, sorted(folder.glob("*.yaml")), concurrency=10), BOUND_SECONDS
        )
        set_faults(sandbox, rpc_faults={})
    assert [r.state for r in rows] == ["registered"] * LAUNCHES, [
        (r.key, r.state, r.error) for r in rows if r.state != "registered"
    ]
    _each_once(sandbox, faults)


async def test_through_the_prefect_flow_too(sandbox_factory, tmp_path, monkeypatch, prefect_server):
    from launchops.flows.batch import batch_flow

    sandbox = sandbox_factory(slot_ms=50, seed=20)
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home", LAUNCHOPS_REBROADCAST_SECONDS="0.3")
    folder = _folder(tmp_path, "flow-rpc")
    set_faults(sandbox, rpc_faults=BEHIND)
    result = await asyncio.wait_for(batch_flow(paths=[str(folder)], concurrency=10), BOUND_SECONDS)
    set_faults(sandbox, rpc_faults={})
    assert result.counts == {"registered": LAUNCHES}, result
    _each_once(sandbox, BEHIND)
