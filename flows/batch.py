"""Many launches from a folder or a list of files, resumable as a whole.

    ask for parts on the pool's workers -> validate every file -> offer the launches
    -> claim and run them as lanes come free -> sweep what others hold -> report

Launches run concurrently (each step a task), the API and RPC rate limits shared by all
of them (on a pool: by every worker, through the server's global limits). On a work
pool, each other online worker gets a `batch-part` flow run, asked for first (a worker
takes seconds to start one); every participant takes the batch's launches from the
journal one at a time as its lanes come free (work stealing, `launchops.pipeline.sharing`),
and the journal's lease gives each launch to one of them. One failing launch never stops
the others; a file with a `schedule:` is left to its own deployment (`scheduled`,
nothing of it created or journaled). While it runs, a progress artifact moves as
launches finish; at the end: JSON and CSV reports, a table artifact, and a FAILED-type
state ("Needs attention") when not every launch finished (`flows/outcome.py`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from launchops.flows.outcome import batch_end
from launchops.tasks import validate_step
from launchops.tasks.context import FlowContext, flow_context, progress, row_listeners
from launchops.tasks.limits import launch_slots
from launchops.tasks.progress import batch_progress
from launchops.tasks.report import publish_report
from launchops.tasks.spread import finish_spread, offered, spread_batch
from prefect import flow
from prefect.states import State

from launchops.config.launchfile import launch_files
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

        total, batch = concurrency or flow_ctx.settings.concurrency, _batch_id()
        # The parts first: a worker takes seconds to pick one up and start it; the files
        # are validated meanwhile, and each part waits for the batch's offer.
        spread = await spread_batch(len(files), batch, profile, profiles_file, total, base_url)
        try:
            rows = await record_files(flow_ctx.ctx, files, concurrency=total, check=check)
            for row in rows:
                row_listeners(row)
            keys = [row.key for row in rows if row.key and row.runnable]
            await flow_ctx.ctx.journal.offer(batch, keys)
            async with batch_progress(rows):
                # With parts, this flow run waits for what they hold, takes over a dead one's.
                await _work_share(
                    flow_ctx, rows, batch, spread.lanes, main=True, parts=spread.parts
                )
        finally:
            states = await finish_spread(spread)
        result = await finish(flow_ctx.ctx, rows, "batch")
    return batch_end(replace(result, parts=states))


@flow(name="batch-part", log_prints=False)
async def batch_part_flow(
    batch: str = "",
    lanes: int = 8,
    profile: str = "sandbox",
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> dict[str, int]:
    """A share of a batch on another worker: once the batch's flow run offered its
    launches, those this worker claims, one at a time as its lanes come free, until none
    is left."""
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:
        rows: list[BatchRow] = []
        if await offered(flow_ctx.ctx.journal, batch):
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
    slots = launch_slots(flow_ctx.launches_limit, lanes, flow_ctx.limits, say=progress)
    async with slots as granted:
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


async def finish(ctx: LaunchContext, rows: list[BatchRow], prefix: str) -> BatchResult:
    """The library's batch outcome (workers named, reports written), and the report as a
    table artifact of the flow run."""
    result = await batch_outcome(ctx, rows, prefix)
    await publish_report(rows, f"{prefix}-report", f"{prefix} {result.reports['json'].stem}")
    return result
