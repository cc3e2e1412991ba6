"""One launch, from a YAML file to a registered launch, resumable at every step.

    validate -> create -> sign -> submit -> confirm -> register

The journal decides which step is next (a re-run continues where a crash stopped; a
finished launch is reported, not re-run); each step is a task over launchops.
"""

from __future__ import annotations

from typing import Any

from prefect import flow

from launchops.api.errors import LaunchOpsError
from launchops.config.profiles import load_profile
from launchops.pipeline.context import LaunchContext, open_context
from launchops.pipeline.runner import run_launch, summary
from tasks import STEP_TASKS, validate_step
from tasks.context import forget, progress, register
from tasks.secrets import secret_keypair


@flow(name="launch", log_prints=False)
async def launch_flow(
    path: str | None = None,
    key: str | None = None,
    profile: str = "sandbox",
    replace: bool = False,
    profiles_file: str | None = None,
) -> dict[str, Any]:
    """Launch the file at `path`, or resume the launch `key` from the journal."""
    settings = load_profile(profile, profiles_file=_path(profiles_file))
    async with open_context(settings, progress=progress, resolver=secret_keypair) as ctx:
        name = register(ctx)
        try:
            if path is not None:
                key = await validate_step(name, path, replace)
            if key is None or await ctx.journal.get(key) is None:
                raise LaunchOpsError(f"no launch {key!r} in the journal of profile {profile}")

            async def call_task(step: str, _: LaunchContext, launch_key: str) -> None:
                await STEP_TASKS[step](name, launch_key)

            record = await run_launch(ctx, key, call=call_task)
        finally:
            forget(name)
    return summary(settings, record)


def _path(value: str | None) -> Any:
    from pathlib import Path

    return Path(value) if value else None
