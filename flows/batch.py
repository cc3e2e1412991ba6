"""Many launches from a folder or a list of files, resumable as a whole.

    validate every file -> spread over the pool's workers -> run my share -> sweep -> report

Launches run concurrently (each step a task), the API and RPC rate limits shared by all
of them (on a pool: by every worker, through the server's global limits). On a work
pool, each other online worker gets a `batch-part` flow run; every participant takes the
batch's launches from the journal one at a time as its lanes come free (work stealing,
`launchops.pipeline.sharing`), and the journal's lease gives each launch to one of them. One failing
launch never stops the others; a file with a `schedule:` is left to its own deployment
(`scheduled`, nothing of it created or journaled). While it runs, a progress artifact
moves as launches finish; at the end: JSON and CSV reports, a table artifact, and a
FAILED-type state ("Needs attention") when not every launch finished (`flows/outcome.py`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from launchops.flows.outcome import batch_end
from launchops.tasks import validate_step
from launchops.tasks.context import FlowContext, flow_context, row_listeners
from launchops.tasks.limits import launch_slots
from launchops.tasks.progress import batch_progress
from launchops.tasks.report import publish_report
from launchops.tasks.spread import finish_spread, spread_batch
from prefect import flow
from prefect.states import State

from launchops.config.launchfile import launch_files
from launchops.journal.records import LaunchRecord
from launchops.library.launches import batch_outcome
from launchops.library.results import BatchResult
from launchops.pipeline.batch import BatchRow, counts, record_files
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.sharing import left_to_others, run_claimed, run_keys, sweep


@flow(name="batch", log_prints=False)
async def batch_flow(
    paths: list[str],
    profile: str = "sandbox",
    concurrency: int | None = None,
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> BatchResult | State[BatchResult]:
    """Run every launch file of `paths` (files or folders), resumable as a whole; a
    FAILED-type state (holding the result) when not every launch finished."""
    files = [file for path in paths for file in launch_files(Path(path))]
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:

        async def check(_: LaunchContext, path: Path) -> str:
            return await validate_step(flow_ctx.name, str(path))

        total = concurrency or flow_ctx.settings.concurrency
        rows = await record_files(flow_ctx.ctx, files, concurrency=total, check=check)
        for row in rows:
            row_listeners(row)
        keys = [row.key for row in rows if row.key and row.runnable]
        batch = _batch_id()
        await flow_ctx.ctx.journal.offer(batch, keys)  # before any part can ask for one
        async with batch_progress(rows):
            spread = await spread_batch(keys, batch, profile, profiles_file, total, base_url)
            # With parts, this flow run waits for what they hold and takes over a dead one's.
            await _work_share(flow_ctx, rows, batch, spread.lanes, main=True, parts=spread.parts)
            parts = await finish_spread(spread)
        result = await finish(flow_ctx.ctx, rows, "batch")
    return batch_end(replace(result, parts=parts))


@flow(name="batch-part", log_prints=False)
async def batch_part_flow(
    keys: list[str],
    batch: str = "",
    lanes: int = 8,
    profile: str = "sandbox",
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> dict[str, int]:
    """A share of a batch on another worker: the batch's launches this worker claims,
    one at a time as its lanes come free, until none is left."""
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:
        records = [await flow_ctx.ctx.journal.get(key) for key in keys]
        rows = [_row(key, record) for key, record in zip(keys, records, strict=True)]
        await _work_share(flow_ctx, rows, batch, lanes, main=False)
    return counts(rows)


async def _work_share(
    flow_ctx: FlowContext,
    rows: list[BatchRow],
    batch: str,
    lanes: int,
    *,
    main: bool,
    parts: list[object] | None = None,
) -> None:
    """This participant's share: its lanes (held in the server's launches-in-flight limit,
    when there is one), each claiming the batch's next unclaimed launch as it comes free.
    Then, for the batch's own flow run: with parts, what the others hold, until they
    finish it or their lease lapses; without, what an earlier attempt of this flow run
    claimed and left."""
    async with launch_slots(flow_ctx.launches_limit, lanes, flow_ctx.limits) as granted:
        common = {"concurrency": granted, "call": flow_ctx.call, "on_update": row_listeners}
        mine = await run_claimed(flow_ctx.ctx, rows, batch, **common)
        if not main:
            return
        left_to_others(rows, mine)
        if parts:
            await sweep(flow_ctx.ctx, rows, **common)
        else:
            await run_keys(flow_ctx.ctx, [r for r in rows if r.key not in mine], **common)


def _batch_id() -> str:
    """The batch's id in the journal's claims: its flow run's."""
    from prefect.context import get_run_context

    flow_run = get_run_context().flow_run  # type: ignore[union-attr]
    assert flow_run is not None
    return str(flow_run.id)


def _row(key: str, record: LaunchRecord | None) -> BatchRow:
    return BatchRow(file=(record.source if record else None) or key, key=key)


async def finish(ctx: LaunchContext, rows: list[BatchRow], prefix: str) -> BatchResult:
    """The library's batch outcome (workers named, reports written), and the report as a
    table artifact of the flow run."""
    result = await batch_outcome(ctx, rows, prefix)
    await publish_report(rows, f"{prefix}-report", f"{prefix} {result.reports['json'].stem}")
    return result
