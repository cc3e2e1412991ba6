"""What every step task runs: the step, with a lost lease as a quiet stop.

A launch another worker took over (this worker's lease lapsed) is not a failure of the
step: the task completes, nothing more is written or sent here, and the flow's runner,
finding the lease gone, leaves the launch to the worker that has it now."""

from __future__ import annotations

import contextlib

from launchops.tasks.context import context

from launchops.errors import LeaseLost
from launchops.pipeline.runner import run_step
from launchops.states import Step


async def run_step_quietly(step: Step, context_name: str, key: str) -> None:
    ctx = context(context_name)
    try:
        await run_step(step, ctx, key)
    except LeaseLost as lost:
        from prefect.exceptions import MissingContextError
        from prefect.logging import get_run_logger

        with contextlib.suppress(MissingContextError):
            get_run_logger().info("%s", lost)
