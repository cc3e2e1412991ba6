"""The confirm step as a Prefect task, thin over run_step (a lost lease: a quiet stop;
a launch it left for a person: a failed task run)."""

from __future__ import annotations

from launchops.tasks.options import STEP_TASK
from launchops.tasks.quiet import run_step_quietly
from prefect import task
from prefect.states import State

from launchops.states import Step


@task(name="confirm", task_run_name="confirm {key}", **STEP_TASK)
async def confirm_step(context_name: str, key: str) -> State[None] | None:
    return await run_step_quietly(Step.CONFIRM, context_name, key)
