"""Registration retry: register every launch whose transactions landed but which is not
registered (the service failed, the worker crashed, or it never got there). Idempotent,
and safe while a batch runs; deploy it on a schedule to mop up."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from prefect import flow

from flows.batch import finish
from launchops.config.profiles import load_profile
from launchops.pipeline.batch import retry_registrations
from launchops.pipeline.context import LaunchContext, open_context
from tasks import STEP_TASKS
from tasks.context import forget, progress, register, row_listeners
from tasks.secrets import secret_keypair


@flow(name="registration-retry", log_prints=False)
async def registrations_flow(
    profile: str = "sandbox", older_than_seconds: float = 300.0, profiles_file: str | None = None
) -> dict[str, Any]:
    settings = load_profile(profile, profiles_file=Path(profiles_file) if profiles_file else None)
    async with open_context(settings, progress=progress, resolver=secret_keypair) as ctx:
        name = register(ctx)

        async def call_task(step: str, _: LaunchContext, key: str) -> None:
            await STEP_TASKS[step](name, key)

        try:
            rows = await retry_registrations(
                ctx,
                older_than=timedelta(seconds=older_than_seconds),
                call=call_task,
                on_update=row_listeners,
            )
        finally:
            forget(name)
    return await finish(rows, settings.profile_dir / "reports", "registrations")
