"""Fund many agents from a YAML or CSV list, with the batch machinery: bounded
concurrency, shared rate limits, each transfer checked before signing, reports, resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow

from flows.batch import finish
from launchops.pipeline.batch import name_workers, run_funding
from tasks.context import flow_context, row_listeners


@flow(name="funding", log_prints=False)
async def funding_flow(
    path: str,
    profile: str = "sandbox",
    concurrency: int | None = None,
    profiles_file: str | None = None,
) -> dict[str, Any]:
    async with flow_context(profile, profiles_file) as flow_ctx:
        rows = await run_funding(
            flow_ctx.ctx,
            Path(path),
            concurrency=concurrency,
            call=flow_ctx.call,
            on_update=row_listeners,
        )
        await name_workers(flow_ctx.ctx, rows)
    return await finish(rows, flow_ctx.settings.profile_dir / "reports", "funding")
