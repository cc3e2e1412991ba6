"""The confirm step as a Prefect task, thin over launchops.pipeline.runner.run_step."""

from __future__ import annotations

from prefect import task

from launchops.pipeline.runner import run_step
from launchops.states import Step
from tasks.context import context
from tasks.options import STEP_TASK


@task(name="confirm", task_run_name="confirm {key}", **STEP_TASK)
async def confirm_step(context_name: str, key: str) -> None:
    await run_step(Step.CONFIRM, context(context_name), key)
