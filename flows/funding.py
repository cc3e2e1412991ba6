"""Fund many agents from a YAML or CSV list, with the batch machinery: bounded
concurrency, shared rate limits, each transfer checked before signing, reports, resume."""

from __future__ import annotations

from pathlib import Path

from launchops.flows.batch import finish
from launchops.flows.outcome import batch_end
from launchops.tasks.context import flow_context, row_listeners
from prefect import flow
from prefect.states import State

from launchops.library.results import BatchResult
from launchops.pipeline.batch import run_funding


@flow(name="funding", log_prints=False)
async def funding_flow(
    path: str,
    profile: str = "sandbox",
    concurrency: int | None = None,
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> BatchResult | State[BatchResult]:
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:
        rows = await run_funding(
            flow_ctx.ctx,
            Path(path),
            concurrency=concurrency,
            call=flow_ctx.call,
            on_update=row_listeners,
        )
        result = await finish(flow_ctx.ctx, rows, "funding")
    return batch_end(result, "transfers")
