"""A batch shared by several workers (the Prefect path on a work pool): each participant
takes the batch's launches from the journal one at a time, whichever is free first.

The batch's flow run offers the launches in order (`Journal.offer`); every participant
(that flow run and each `batch-part` on another worker) runs its lanes, and a lane with
nothing to do claims the next unclaimed launch (`Journal.claim_next`, atomic) and works
it. Nothing is split ahead: a worker that starts late takes what is left, and an idle
worker never waits for a busy one. The launch's lease still gives each launch to one
worker at a time; the batch's flow run then waits for what the others hold (`sweep`),
and takes over what a dead one left once its lease lapses.
"""

from __future__ import annotations

import asyncio
import time

from launchops.pipeline.batch import Update, bounded, stopped_row, work_row
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.rows import BatchRow, RowStatus
from launchops.pipeline.runner import StepCaller, run_step


def _unheard(row: BatchRow) -> None:
    """The update callback when nobody listens."""


async def run_claimed(
    ctx: LaunchContext,
    rows: list[BatchRow],
    batch: str,
    *,
    concurrency: int | None = None,
    call: StepCaller = run_step,
    on_update: Update | None = None,
) -> set[str]:
    """Work the batch's launches that this participant claims, `concurrency` lanes each
    claiming the next unclaimed one as it comes free, until none is left; the keys it
    claimed. Rows of launches claimed by others are left as they are; a claimed launch
    with no row in `rows` (a part knows none ahead) gets one, added to them."""
    notify = on_update or _unheard
    by_key = {row.key: row for row in rows if row.key}
    mine: set[str] = set()
    worker = ctx.worker or ctx.owner

    async def lane() -> None:
        while (key := await ctx.journal.claim_next(batch, worker)) is not None:
            mine.add(key)
            if key not in by_key:
                record = await ctx.journal.get(key)
                by_key[key] = BatchRow(file=(record.source if record else None) or key, key=key)
                rows.append(by_key[key])
            if not stopped_row(ctx, by_key[key], notify):
                await work_row(ctx, by_key[key], call, notify)

    await asyncio.gather(*(lane() for _ in range(concurrency or ctx.profile.concurrency)))
    return mine


def left_to_others(rows: list[BatchRow], mine: set[str]) -> None:
    """Rows of launches another participant claimed: `elsewhere` until `sweep` finds
    them finished or takes them over."""
    for row in rows:
        if row.key and row.runnable and row.key not in mine and row.underway:
            row.state = RowStatus.ELSEWHERE


async def run_keys(
    ctx: LaunchContext,
    rows: list[BatchRow],
    *,
    concurrency: int | None = None,
    call: StepCaller = run_step,
    on_update: Update | None = None,
) -> list[BatchRow]:
    """Run the recorded launches of `rows` that are not finished, at most `concurrency` in
    flight; a launch another worker has is left to it (`elsewhere`)."""
    notify = on_update or _unheard

    async def one(row: BatchRow) -> None:
        if not stopped_row(ctx, row, notify):
            await work_row(ctx, row, call, notify)

    todo = [r for r in rows if r.key and not r.finished and r.runnable]
    await bounded(todo, concurrency or ctx.profile.concurrency, one)
    return rows


async def sweep(
    ctx: LaunchContext,
    rows: list[BatchRow],
    *,
    concurrency: int | None = None,
    call: StepCaller = run_step,
    on_update: Update | None = None,
    poll: float = 2.0,
    patience: float = 3600.0,
) -> list[BatchRow]:
    """Run again what another worker had, until nothing is left to one: finished by it
    meanwhile, or taken over here once its lease lapsed (a worker that died: at once on
    this machine, after `lease_seconds` elsewhere)."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        left = [row for row in rows if row.state is RowStatus.ELSEWHERE]
        if not left:
            break
        await asyncio.sleep(poll)
        await run_keys(ctx, left, concurrency=concurrency, call=call, on_update=on_update)
    return rows


__all__ = ["left_to_others", "run_claimed", "run_keys", "sweep"]
