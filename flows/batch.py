"""Many launches from a folder or a list of files, resumable as a whole.

Launches run concurrently on the flow's event loop (each step a task), at most
`concurrency` in flight, the API and RPC rate limits shared by all of them. One failing
launch never stops the others. At the end: JSON and CSV reports and a table artifact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow

from launchops.config.launchfile import launch_files
from launchops.pipeline.batch import BatchRow, batch_result, run_batch
from launchops.pipeline.context import LaunchContext
from tasks import validate_step
from tasks.context import flow_context, row_listeners
from tasks.report import publish_report


@flow(name="batch", log_prints=False)
async def batch_flow(
    paths: list[str],
    profile: str = "sandbox",
    concurrency: int | None = None,
    profiles_file: str | None = None,
) -> dict[str, Any]:
    files = [file for path in paths for file in launch_files(Path(path))]
    async with flow_context(profile, profiles_file) as flow_ctx:

        async def check(_: LaunchContext, path: Path) -> str:
            return await validate_step(flow_ctx.name, str(path))

        rows = await run_batch(
            flow_ctx.ctx,
            files,
            concurrency=concurrency,
            call=flow_ctx.call,
            check=check,
            on_update=row_listeners,
        )
    return await finish(rows, flow_ctx.settings.profile_dir / "reports", "batch")


async def finish(rows: list[BatchRow], folder: Path, prefix: str) -> dict[str, Any]:
    result = batch_result(rows, folder, prefix)
    await publish_report(
        rows, f"{prefix}-report", f"{prefix} {Path(result['reports']['json']).stem}"
    )
    return result
