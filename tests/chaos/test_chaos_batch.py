"""A batch of 30 launches through the Prefect batch flow, against a sandbox with every
fault on at once: 30 % of sends dropped, 10 % of RPC and API calls refused with 429 or
503, about 8 % answered as a lagging node does (-32005 with and without data, -32016),
status reads from a node 30 slots behind, 200 ms added to every answer, blockhash expiry
forced on the first creates, and the first registers failing with 500. Every launch must
end registered exactly once, with one mint, nothing lost, in bounded time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import launchops.web as web
from launchops.journal.store import Journal
from tests.support.pipeline import profile_env, profile_for, set_faults, stats, write_launch

LAUNCHES = 30
FORCED_EXPIRIES = 6
# The forced expiries go to the next creates, whichever launches make them: a launch that
# re-creates at once while the others wait out refusals and rates can take several (three
# in a row, once in CI: its three attempts spent, "blockhash expired on 3 attempts", the
# retry policy's designed bound, not a broken rule). Each launch gets attempts for all of
# them and two natural expiries more, so that any spread of the faults lets it land.
CREATE_ATTEMPTS = FORCED_EXPIRIES + 2
FAILING_REGISTERS = 5
BOUND_SECONDS = 240  # measured 17-19 s on two shared cores: this catches a hang or a spiral


async def test_a_batch_of_30_under_every_fault_registers_each_exactly_once(
    sandbox_factory, tmp_path, monkeypatch, prefect_server
):
    from launchops.flows.batch import batch_flow

    sandbox = sandbox_factory(slot_ms=50, seed=7)
    home = tmp_path / "home"
    settings = {"LAUNCHOPS_POLL_SECONDS": "0.1", "LAUNCHOPS_CREATE_ATTEMPTS": str(CREATE_ATTEMPTS)}
    for name, value in profile_env(sandbox, home, **settings).items():
        if name.startswith("LAUNCHOPS_"):
            monkeypatch.setenv(name, value)
    assert profile_for(sandbox, home).create_attempts == CREATE_ATTEMPTS  # what the flow reads
    folder = tmp_path / "launches"
    for index in range(LAUNCHES):
        write_launch(folder, f"chaos-{index:02d}.yaml", key=f"chaos-{index:02d}")
    started = time.monotonic()
    with _every_fault_on(sandbox):
        result = await asyncio.wait_for(
            batch_flow(paths=[str(folder)], concurrency=10), timeout=BOUND_SECONDS
        )
    elapsed = time.monotonic() - started
    seen = stats(sandbox)

    assert result.counts == {"registered": LAUNCHES}, result.counts
    # Every fault really fired.
    refused = seen["refused"]
    assert refused.get("POST /v1/launches/register", 0) >= FAILING_REGISTERS
    assert sum(v for k, v in refused.items() if not k.startswith(("GET ", "POST "))) > 0  # RPC
    assert refused.get("POST /v1/launches/create", 0) > 0
    assert seen["chain"]["dropped"] > 0
    # Exactly one mint and one registration per launch.
    launches = seen["launches"]
    assert launches["registered"] == LAUNCHES and launches["mintsOnChain"] == LAUNCHES

    records = await _records(profile_for(sandbox, home).journal)
    assert all(r is not None and r.state == "registered" for r in records)
    mints = {str(r.registered.mint) for r in records}
    assert len(mints) == LAUNCHES
    # Every create beyond one a launch is an attempt the journal shows expired with nothing
    # landed: the forced ones, and any whose sends were all dropped until its blockhash died.
    expired = sum(a.outcome == "expired" for r in records for a in r.attempts)
    assert expired >= FORCED_EXPIRIES
    assert launches["created"] == LAUNCHES + expired
    assert sum(r.attempt for r in records) == LAUNCHES + expired
    for mint in mints:  # the service lists one launch per token: registered once
        token = web.get(f"{sandbox.base_url}/tokens/{mint}").json()["data"]
        assert len(token["launches"]) == 1
    print(
        f"\nchaos batch: {LAUNCHES} launches registered once each in {elapsed:.1f} s; "
        f"{seen['chain']['dropped']} sends dropped, {sum(refused.values())} calls refused "
        f"({refused}), {expired} expiries re-created ({FORCED_EXPIRIES} forced), "
        f"{seen['rpcTotal']} RPC and {seen['apiTotal']} API calls"
    )


@contextmanager
def _every_fault_on(sandbox: Any) -> Iterator[None]:
    """Every fault at once, for as long as the block runs; then those that keep firing off
    (the counted ones, expiries and failing registers, are spent by then)."""
    set_faults(
        sandbox,
        drop_rate=0.3,
        rpc_error_rate=0.1,
        api_error_rate=0.1,
        error_status="mixed",
        latency_ms=200,
        expire_next=FORCED_EXPIRIES,
        fail_status=500,
        fail_next={"POST /v1/launches/register": FAILING_REGISTERS},
        rpc_faults={"behind": 0.04, "unhealthy_no_data": 0.02, "min_context_slot": 0.02},
        rpc_lag_slots={"getSignatureStatuses": 30},
    )
    try:
        yield
    finally:
        off = {"drop_rate": 0, "rpc_error_rate": 0, "api_error_rate": 0, "latency_ms": 0}
        set_faults(sandbox, **off, rpc_faults={}, rpc_lag_slots={})


async def _records(journal_url: str) -> list[Any]:
    """Each launch's journal record, in key order."""
    journal = await Journal.open(journal_url)
    try:
        return [await journal.get(f"chaos-{index:02d}") for index in range(LAUNCHES)]
    finally:
        await journal.close()
