"""A batch's progress as a Prefect progress artifact: a bar on the flow run's page that
moves as launches finish. Looked at every few seconds and sent only when a launch finished
since (a call per change, at most one every `PROGRESS_SECONDS`, never one per step); a
server that is away costs the batch nothing but the bar.

The ticker ends when the block does, by an event as well as by a cancel: on Python 3.11,
a cancel that lands as a call finishes can be lost (`asyncio.wait_for` returned the call's
result instead, CPython bpo-42130), and a ticker that outlived its cancel held the batch's
end forever (its flow run Running, every launch done). The calls are bounded by
`asyncio.timeout`, which keeps the call in the ticker's own task."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from uuid import UUID

from launchops.pipeline.batch import BatchRow, counts

PROGRESS_SECONDS = 2.0
# The bar's every call is bounded: the client's own retries would hold the batch while the
# server is away (minutes, with PREFECT_CLIENT_MAX_RETRIES raised), before a launch starts.
PROGRESS_CALL_SECONDS = 5.0
logger = logging.getLogger(__name__)


def progress_of(rows: list[BatchRow], noun: str = "launches") -> tuple[float, str]:
    """The percentage done, and its line: `3 of 4 launches done: 1 running, 3 registered`."""
    done = sum(not row.underway for row in rows)
    found = ", ".join(f"{n} {state}" for state, n in counts(rows).items())
    percent = 100.0 * done / len(rows) if rows else 100.0
    return percent, f"{done} of {len(rows)} {noun} done: {found or 'none'}"


@asynccontextmanager
async def batch_progress(
    rows: list[BatchRow], key: str = "batch-progress", every: float = PROGRESS_SECONDS
) -> AsyncIterator[None]:
    """A progress artifact of the flow run for `rows` while the block runs, at its end the
    last word (100% when every row finished)."""
    artifact = await _create(rows, key)
    done = asyncio.Event()
    ticker = asyncio.create_task(_tick(artifact, rows, every, done)) if artifact else None
    try:
        yield
    finally:
        if ticker is not None:
            done.set()
            ticker.cancel()
            # Not `suppress(CancelledError)` around `await ticker`: that swallowed a cancel
            # of this block's own (a timeout, the flow run cancelled) as well.
            await asyncio.gather(ticker, return_exceptions=True)
            await _update(artifact, rows)


async def _create(rows: list[BatchRow], key: str) -> UUID | None:
    from prefect.artifacts import acreate_progress_artifact

    percent, line = progress_of(rows)
    try:
        async with asyncio.timeout(PROGRESS_CALL_SECONDS):
            return await acreate_progress_artifact(percent, key=key, description=line)
    except Exception as error:  # no bar (the server away or refusing), but the batch runs
        logger.debug("no progress artifact: %s", error)
        return None


async def _tick(artifact: UUID, rows: list[BatchRow], every: float, done: asyncio.Event) -> None:
    last = progress_of(rows)
    while not done.is_set():
        await asyncio.sleep(every)
        now = progress_of(rows)
        if now != last:
            await _update(artifact, rows)
            last = now


async def _update(artifact: UUID | None, rows: list[BatchRow]) -> None:
    from prefect.artifacts import aupdate_progress_artifact

    if artifact is None:
        return
    percent, line = progress_of(rows)
    try:
        async with asyncio.timeout(PROGRESS_CALL_SECONDS):
            await aupdate_progress_artifact(artifact, percent, description=line)
    except Exception as error:
        logger.debug("progress artifact not updated: %s", error)
