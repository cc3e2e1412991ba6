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
from launchops.config.profiles import load_profile
from launchops.pipeline.batch import BatchRow, batch_result, run_batch
from launchops.pipeline.context import LaunchContext, open_context
from tasks import STEP_TASKS, validate_step
from tasks.context import forget, progress, register, row_listeners
from tasks.report import publish_report
from tasks.secrets import secret_keypair


@flow(name="batch", log_prints=False)
async def batch_flow(
    paths: list[str],
    profile: str = "sandbox",
    concurrency: int | None = None,
    profiles_file: str | None = None,
) -> dict[str, Any]:
    settings = load_profile(profile, profiles_file=Path(profiles_file) if profiles_file else None)
    files = [file for path in paths for file in launch_files(Path(path))]
    async with open_context(settings, progress=progress, resolver=secret_keypair) as ctx:
        name = register(ctx)

        async def call_task(step: str, _: LaunchContext, key: str) -> None:
            await STEP_TASKS[step](name, key)

        async def check(_: LaunchContext, path: Path) -> str:
            return await validate_step(name, str(path))

        try:
            rows = await run_batch(
                ctx,
                files,
                concurrency=concurrency,
                call=call_task,
                check=check,
                on_update=row_listeners,
            )
        finally:
            forget(name)
    return await finish(rows, settings.profile_dir / "reports", "batch")


async def finish(rows: list[BatchRow], folder: Path, prefix: str) -> dict[str, Any]:
    result = batch_result(rows, folder, prefix)
    await publish_report(
        rows, f"{prefix}-report", f"{prefix} {Path(result['reports']['json']).stem}"
    )
    return result
