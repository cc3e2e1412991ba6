"""Leases in one process: renewed in the background while a step waits on an answer slower
than the lease; a holder whose lease was taken while its create was in flight stops
quietly and the taker finishes the launch; a journal failing to open stops the sandbox
`open_context` started."""

from __future__ import annotations

import asyncio
import time

import pytest

from launchops.errors import JournalUnavailable, LeaseLost
from launchops.pipeline import context as context_module
from launchops.pipeline.batch import RowStatus, run_batch
from launchops.pipeline.runner import run_launch, run_step, validate
from launchops.states import Step
from tests.support.pipeline import context_for, profile_for, set_faults, stats, write_launch


async def test_a_step_slower_than_the_lease_keeps_it(sandbox_factory, tmp_path):
    """Leases of 2 s, renewed every 0.67 s: a process stalled for over a second (six test
    processes on two cores) still keeps its lease, as a worker's 60 s lease rides over far
    longer stalls. With 1 s leases, CI once lost one to a stall of ~0.7 s."""
    sandbox = sandbox_factory()
    path = write_launch(tmp_path / "launches", key="slow")
    async with (
        context_for(sandbox, tmp_path, lease_seconds=2.0) as first,
        context_for(sandbox, tmp_path, lease_seconds=2.0) as second,
    ):
        key = (await validate(first, path)).key
        set_faults(sandbox, latency_ms=5000)  # create answers after 2.5 leases
        refused = []

        async def knock() -> None:
            while True:
                refused.append(await second.journal.acquire(key, second.owner, 1.0) is None)
                await asyncio.sleep(0.2)

        async with first.holding(key):
            knocking = asyncio.create_task(knock())
            started = time.monotonic()
            await run_step(Step.CREATE, first, key)
            knocking.cancel()
        assert time.monotonic() - started > 4.0
        assert len(refused) >= 8 and all(refused)  # never free while the step ran
        assert (await first.journal.get(key)).state == "created"
        set_faults(sandbox, latency_ms=0)
        assert (await run_launch(second, key)).state == "registered"


async def test_a_create_answered_after_a_take_over_is_dropped_quietly(sandbox_factory, tmp_path):
    """Worker A asks create; meanwhile B takes the launch over (A's lease lapsed). A's answer
    is refused by the journal, A stops without a failure (the batch row says the launch
    was taken over), B creates and finishes: two creates, one mint, one registration."""
    sandbox = sandbox_factory()
    path = write_launch(tmp_path / "launches", key="taken")
    async with context_for(sandbox, tmp_path) as a, context_for(sandbox, tmp_path) as b:

        async def call(step, ctx, key):
            if step is Step.CREATE:  # B takes it over while A's create is under way
                assert await b.journal.take_over(key, a.owner, b.owner, 60, "b") is not None
            await run_step(step, ctx, key)

        [row] = await run_batch(a, [path], call=call)
        assert row.state is RowStatus.ELSEWHERE and row.finished_or_elsewhere
        assert "taken over by another worker" in row.error
        record = await a.journal.get(row.key)
        assert record.state == "validated" and record.attempts == []  # nothing of A's kept
        assert (await run_launch(b, row.key)).state == "registered"
    counts = stats(sandbox)["launches"]
    assert counts["created"] == 2 and counts["mintsOnChain"] == counts["registered"] == 1


async def test_a_journal_that_fails_to_open_stops_the_sandbox(tmp_path, monkeypatch):
    stopped = []

    class Started:
        def stop(self) -> None:
            stopped.append(True)

    async def fails(url: str) -> None:
        raise JournalUnavailable("the journal's database did not answer")

    monkeypatch.setattr(context_module, "start_embedded_sandbox", lambda *a: Started())
    monkeypatch.setattr(context_module.Journal, "open", fails)
    profile = profile_for(
        type("Nowhere", (), {"base_url": "http://127.0.0.1:9/v1", "rpc_url": "http://127.0.0.1:9"}),
        tmp_path,
    )
    with pytest.raises(JournalUnavailable):
        async with context_module.open_context(profile):
            pass
    assert stopped == [True]


async def test_a_step_task_treats_a_lost_lease_as_a_quiet_stop(sandbox_factory, tmp_path):
    """The Prefect create task of a launch taken over meanwhile completes without an error
    (nothing created is kept); the runner, renewing next, finds the lease gone."""
    from launchops.tasks import STEP_TASKS
    from launchops.tasks.context import forget, register

    sandbox = sandbox_factory()
    path = write_launch(tmp_path / "launches", key="quiet")
    async with context_for(sandbox, tmp_path) as a, context_for(sandbox, tmp_path) as b:
        key = (await validate(a, path)).key
        assert await a.acquire(key)
        assert await b.journal.take_over(key, a.owner, b.owner, 60, "b") is not None
        name = register(a)
        try:
            assert await STEP_TASKS[Step.CREATE].fn(name, key) is None  # the task body: no failure
        finally:
            forget(name)
        assert (await a.journal.get(key)).state == "validated"
        with pytest.raises(LeaseLost):
            await a.renew(key)
        await a.release(key)
