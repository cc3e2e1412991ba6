"""A journal whose database stops answering mid-batch (PostgreSQL behind a relay that is
cut, as a stopped server or a lost network is): the batch ends with its report, the rows
it could not finish `unfinished` (never `invalid`), and the same batch run again once the
database is back finishes every launch once."""

from __future__ import annotations

import asyncio
import time

import pytest

from launchops.library.launches import batch_outcome
from launchops.pipeline.batch import run_batch
from tests.support.cut import relay
from tests.support.pipeline import context_for, stats, write_launch

LAUNCHES = 8
pytestmark = pytest.mark.postgres


async def _until(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never held")
        await asyncio.sleep(0.05)


async def test_a_journal_that_stops_mid_batch_ends_it_with_its_report(
    sandbox_factory, tmp_path, postgres_url
):
    sandbox = sandbox_factory(slot_ms=50)
    folder = tmp_path / "launches"
    files = [
        write_launch(folder, f"j-{n}.yaml", key=f"journal-out-{n}", symbol=f"J{n}")
        for n in range(LAUNCHES)
    ]
    with relay("127.0.0.1", 5432) as database:
        url = postgres_url.replace("127.0.0.1:5432", f"127.0.0.1:{database.port}")
        profile = {"journal_url": url, "concurrency": 4, "ws_url": "none"}
        async with context_for(sandbox, tmp_path, lease_seconds=2, **profile) as ctx:
            running = asyncio.create_task(run_batch(ctx, files))
            await _until(lambda: stats(sandbox)["rpc"].get("sendTransaction", 0) >= 2)
            database.cut()
            rows = await asyncio.wait_for(running, 120)
            result = await batch_outcome(ctx, rows, "batch")
        assert not result.ok
        states = {str(row.state) for row in rows}
        assert "invalid" not in states, [(r.state, r.error) for r in rows]
        assert "unfinished" in states, [(r.state, r.error) for r in rows]
        assert all(path.is_file() for path in result.reports.values())
        unfinished = [row for row in rows if row.state == "unfinished"]
        assert all("journal" in (row.error or "") for row in unfinished), unfinished

        database.mend()
        await asyncio.sleep(2.5)  # the first run's leases lapse (its process lives on)
        async with context_for(sandbox, tmp_path, **profile) as ctx:
            again = await run_batch(ctx, files)
    assert [str(row.state) for row in again] == ["registered"] * LAUNCHES, [
        (row.state, row.error) for row in again
    ]
    launches = stats(sandbox)["launches"]
    assert launches["mintsOnChain"] == LAUNCHES and launches["registered"] == LAUNCHES
