"""What every step task runs: the step, with a lost lease as a quiet stop, and a launch the
step left short of done (failed, needing a person, refused by register) as a failed task
run, with the reason.

A launch another worker took over (this worker's lease lapsed) is not a failure of the
step: the task completes, nothing more is written or sent here, and the flow's runner,
finding the lease gone, leaves the launch to the worker that has it now.

A step that stopped its launch does not raise (the runner goes on to the next launch): the
task returns a FAILED-type state named for the launch's state, its message the reason.
The caller (`FlowContext.call`) takes it as the step's end, and retries leave it alone."""

from __future__ import annotations

import contextlib

from launchops.tasks.context import context
from launchops.tasks.stops import STOPS
from prefect.states import State, StateType

from launchops.errors import LeaseLost
from launchops.pipeline.runner import run_step
from launchops.states import Step


async def run_step_quietly(step: Step, context_name: str, key: str) -> State[None] | None:
    ctx = context(context_name)
    try:
        await run_step(step, ctx, key)
    except LeaseLost as lost:
        from prefect.exceptions import MissingContextError
        from prefect.logging import get_run_logger

        with contextlib.suppress(MissingContextError):
            get_run_logger().info("%s", lost)
        return None
    record = await ctx.journal.get(key)
    if record is None or record.state not in STOPS:
        return None
    reason = f": {record.last_error}" if record.last_error else ""
    return State(
        type=StateType.FAILED,
        name=STOPS[record.state],
        message=f"{step} left {key} {record.state}{reason}",
    )
