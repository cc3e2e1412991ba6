"""One launch, from a YAML file to a registered launch, resumable at every step.

    validate -> create -> sign -> submit -> confirm -> register

The journal decides which step is next (a re-run continues where a crash stopped; a
finished launch is reported, not re-run); each step is a task over launchops.
"""

from __future__ import annotations

from typing import Any

from prefect import flow

from launchops.api.errors import LaunchOpsError
from launchops.pipeline.runner import run_launch, summary
from tasks import validate_step
from tasks.context import flow_context


@flow(name="launch", log_prints=False)
async def launch_flow(
    path: str | None = None,
    key: str | None = None,
    profile: str = "sandbox",
    replace: bool = False,
    profiles_file: str | None = None,
) -> dict[str, Any]:
    """Launch the file at `path`, or resume the launch `key` from the journal."""
    async with flow_context(profile, profiles_file) as flow_ctx:
        if path is not None:
            key = await validate_step(flow_ctx.name, path, replace)
        if key is None or await flow_ctx.ctx.journal.get(key) is None:
            raise LaunchOpsError(f"no launch {key!r} in the journal of profile {profile}")
        record = await run_launch(flow_ctx.ctx, key, call=flow_ctx.call)
    return summary(flow_ctx.settings, record)
