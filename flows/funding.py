"""Fund many agents from a YAML or CSV list, with the batch machinery: bounded
concurrency, shared rate limits, each transfer checked before signing, reports, resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow

from flows.batch import finish
from launchops.config.profiles import load_profile
from launchops.pipeline.batch import run_funding
from launchops.pipeline.context import LaunchContext, open_context
from tasks import STEP_TASKS
from tasks.context import forget, progress, register, row_listeners
from tasks.secrets import secret_keypair


@flow(name="funding", log_prints=False)
async def funding_flow(
    path: str,
    profile: str = "sandbox",
    concurrency: int | None = None,
    profiles_file: str | None = None,
) -> dict[str, Any]:
    settings = load_profile(profile, profiles_file=Path(profiles_file) if profiles_file else None)
    async with open_context(settings, progress=progress, resolver=secret_keypair) as ctx:
        name = register(ctx)

        async def call_task(step: str, _: LaunchContext, key: str) -> None:
            await STEP_TASKS[step](name, key)

        try:
            rows = await run_funding(
                ctx, Path(path), concurrency=concurrency, call=call_task, on_update=row_listeners
            )
        finally:
            forget(name)
    return await finish(rows, settings.profile_dir / "reports", "funding")
