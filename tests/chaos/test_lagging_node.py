"""A node behind a load balancer that lags: its answers come from a view of the chain
older than the slot another node saw a blockhash expire at. A stale "not found" is no
proof that nothing landed: every launch must land once, with one create and one mint.

Scaled down from what was seen (status reads 200 slots behind, blockhashes living 150
slots of 100 ms): slots of 50 ms, so a blockhash dies 7.5 s after its create while its
first transaction, which landed at once, shows in the lagging view only 10 s later.
"""

from __future__ import annotations

import asyncio

import pytest

from launchops.pipeline.batch import run_batch
from tests.support.pipeline import (
    aim_flows_at,
    context_for,
    profile_for,
    set_faults,
    stats,
    write_launch,
)

LAUNCHES = 6
LAG = {"getSignatureStatuses": 200}  # the status reads lag; the block height is current
EVERY_READ = {"*": 200}  # every read lags alike
POLLING_ONLY = {"ws_url": "off", "poll_seconds": 0.1}
BOUND_SECONDS = 180


def _folder(tmp_path, prefix: str):
    folder = tmp_path / "launches"
    for index in range(LAUNCHES):
        write_launch(folder, f"{prefix}-{index}.yaml", key=f"{prefix}-{index}", symbol=f"L{index}")
    return folder


def _one_each(sandbox) -> None:
    launches = stats(sandbox)["launches"]
    assert launches["created"] == LAUNCHES, launches  # no create again
    assert launches["mintsOnChain"] == LAUNCHES, launches
    assert launches["registered"] == LAUNCHES, launches


@pytest.mark.parametrize("lag", [LAG, EVERY_READ], ids=["status-reads", "every-read"])
async def test_a_lagging_node_never_makes_a_second_token(sandbox_factory, tmp_path, lag):
    sandbox = sandbox_factory(slot_ms=50)
    folder = _folder(tmp_path, "lag")
    set_faults(sandbox, rpc_lag_slots=lag, rpc_lag_seconds=25)
    async with context_for(sandbox, tmp_path, **POLLING_ONLY) as ctx:
        rows = await asyncio.wait_for(
            run_batch(ctx, sorted(folder.glob("*.yaml")), concurrency=LAUNCHES),
            BOUND_SECONDS,
        )
    assert [r.state for r in rows] == ["registered"] * LAUNCHES, [(r.state, r.error) for r in rows]
    _one_each(sandbox)


async def test_through_the_prefect_flow_too(sandbox_factory, tmp_path, monkeypatch, prefect_server):
    from launchops.flows.batch import batch_flow

    sandbox = sandbox_factory(slot_ms=50)
    profile = profile_for(sandbox, tmp_path / "home", **POLLING_ONLY)
    aim_flows_at(
        monkeypatch,
        sandbox,
        profile.state_dir,
        LAUNCHOPS_WS_URL="off",
        LAUNCHOPS_POLL_SECONDS="0.1",
        LAUNCHOPS_REBROADCAST_SECONDS="0.3",
    )
    folder = _folder(tmp_path, "flow-lag")
    set_faults(sandbox, rpc_lag_slots=LAG, rpc_lag_seconds=25)
    result = await asyncio.wait_for(
        batch_flow(paths=[str(folder)], concurrency=LAUNCHES), BOUND_SECONDS
    )
    assert result.counts == {"registered": LAUNCHES}, result
    _one_each(sandbox)
