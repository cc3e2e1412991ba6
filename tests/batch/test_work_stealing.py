"""A batch shared by several workers takes its launches from the journal one at a time,
whichever participant is free (work stealing), on SQLite and PostgreSQL: each launch
claimed exactly once however many lanes race for it, a participant that starts late takes
what is left, and the report's workers are those of this batch only."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from launchops.journal.store import Journal
from launchops.pipeline.batch import run_batch
from launchops.pipeline.rows import RowStatus
from launchops.pipeline.sharing import left_to_others, run_claimed
from tests.support.pipeline import context_for, write_launch


@pytest.fixture(params=["sqlite", "postgres"])
def journal_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'journal.db'}"
    return request.getfixturevalue("postgres_url")


async def test_racing_lanes_of_two_participants_claim_each_launch_once(journal_url):
    # Two participants, each its own engine (as two worker processes), four lanes each.
    first, second = await Journal.open(journal_url), await Journal.open(journal_url)
    try:
        batch = uuid.uuid4().hex
        keys = [f"steal-{batch[:6]}-{i:02d}" for i in range(40)]
        await first.offer(batch, keys)
        await second.offer(batch, list(reversed(keys)))  # offered again: kept as it was
        taken: dict[str, list[str]] = {"a": [], "b": []}

        async def lane(journal: Journal, name: str) -> None:
            while (key := await journal.claim_next(batch, name)) is not None:
                taken[name].append(key)
                await asyncio.sleep(0)

        lanes = [lane(first, "a") for _ in range(4)] + [lane(second, "b") for _ in range(4)]
        await asyncio.gather(*lanes)
        claimed = taken["a"] + taken["b"]
        assert sorted(claimed) == keys  # every launch, none twice
        assert await first.claimed(batch) == {
            key: name for name, mine in taken.items() for key in mine
        }
    finally:
        await first.close()
        await second.close()


async def test_a_participant_that_starts_late_takes_what_is_left(journal_url):
    journal = await Journal.open(journal_url)
    try:
        batch = uuid.uuid4().hex
        keys = [f"late-{batch[:6]}-{i}" for i in range(4)]
        await journal.offer(batch, keys)
        early = [await journal.claim_next(batch, "early") for _ in range(3)]
        assert early == keys[:3]
        assert await journal.claim_next(batch, "late") == keys[3]
        assert await journal.claim_next(batch, "late") is None
        assert await journal.claim_next("no-such-batch", "late") is None
    finally:
        await journal.close()


async def test_a_participant_works_only_what_it_claimed(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50)
    folder = tmp_path / "launches"
    paths = [
        write_launch(folder, f"s{i}.yaml", key=f"shared-{i}", symbol=f"S{i}") for i in range(4)
    ]
    async with context_for(sandbox, tmp_path) as ctx:
        from launchops.pipeline.batch import record_files

        rows = await record_files(ctx, paths)
        batch = uuid.uuid4().hex
        await ctx.journal.offer(batch, [row.key for row in rows if row.key])
        assert await ctx.journal.claim_next(batch, "another worker") == "shared-0"
        mine = await run_claimed(ctx, rows, batch, concurrency=2)
        left_to_others(rows, mine)
    assert mine == {"shared-1", "shared-2", "shared-3"}
    states = {row.key: row.state for row in rows}
    assert states == {
        "shared-0": RowStatus.ELSEWHERE,
        "shared-1": "registered",
        "shared-2": "registered",
        "shared-3": "registered",
    }


async def test_the_report_names_the_workers_of_this_batch_only(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50)
    folder = tmp_path / "launches"
    paths = [
        write_launch(folder, f"w{i}.yaml", key=f"worked-{i}", symbol=f"W{i}") for i in range(2)
    ]
    from launchops.library import batch_outcome

    async with context_for(sandbox, tmp_path) as ctx:
        rows = await run_batch(ctx, paths[:1])
        first = await batch_outcome(ctx, rows, "batch")
    assert ctx.worker and [item.worker for item in first.items] == [ctx.worker]
    async with context_for(sandbox, tmp_path) as ctx:  # the next batch: one more launch
        rows = await run_batch(ctx, paths)
        again = await batch_outcome(ctx, rows, "batch")
    workers = {item.key: item.worker for item in again.items}
    assert workers["worked-0"] is None  # finished by the batch before: not this one's
    assert workers["worked-1"] == ctx.worker
