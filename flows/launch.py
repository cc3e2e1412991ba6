"""One launch, from a YAML file to a registered launch, resumable at every step.

    validate -> create -> sign -> submit -> confirm -> register

The journal decides which step is next (a re-run continues where a crash stopped; a
finished launch is reported, not re-run); each step is a task over launchops.
"""

from __future__ import annotations

from pathlib import Path

from launchops.flows.outcome import launch_end
from launchops.tasks import validate_step
from launchops.tasks.context import flow_context
from prefect import flow
from prefect.states import State

from launchops.library.launches import launch_in
from launchops.library.results import LaunchResult


@flow(name="launch", log_prints=False)
async def launch_flow(
    path: str | None = None,
    key: str | None = None,
    profile: str = "sandbox",
    replace: bool = False,
    profiles_file: str | None = None,
    base_url: str | None = None,
    now: bool = False,
) -> LaunchResult | State[LaunchResult]:
    """Launch the file at `path`, or resume the launch `key` from the journal: the
    library's `launch_in`, each step its Prefect task; a FAILED-type state (holding the
    result) when the launch did not end registered. A file whose `schedule:` is still
    ahead is refused unless `now` (its deployment's runs pass it: their time has come)."""
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:

        async def check(file: Path, replace: bool) -> str:
            return await validate_step(flow_ctx.name, str(file), replace)

        result = await launch_in(
            flow_ctx.ctx, path, key=key, replace=replace, now=now, call=flow_ctx.call, check=check
        )
    return launch_end(result)
