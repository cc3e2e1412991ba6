"""The step tasks: one Prefect task for each step of the step tables, each thin over
run_step (a lost lease: a quiet stop; a launch it left failed or needing a person: a
failed task run with the reason). Made from the tables, so a step added there has
its task here without a module of its own."""

from __future__ import annotations

from typing import Any

from launchops.tasks.context import STEP_TASKS
from launchops.tasks.options import STEP_TASK
from launchops.tasks.quiet import run_step_quietly
from prefect import Task, task
from prefect.states import State

from launchops.pipeline.runner import STEP_TABLES
from launchops.states import Step

StepTask = Task[[str, str], Any]


def step_task(step: Step) -> StepTask:
    """The task that runs `step` on a launch: named for the step (`create`), each run for
    the step and the launch (`create <key>`)."""

    async def run(context_name: str, key: str) -> State[None] | None:
        # A lost lease: a quiet stop; a launch the step left for a person: a failed run.
        return await run_step_quietly(step, context_name, key)

    # Prefect keys a task by its function's name: one name per step.
    run.__name__ = run.__qualname__ = f"{step}_step"
    return task(name=str(step), task_run_name=f"{step} {{key}}", **STEP_TASK)(run)


STEP_TASKS.update(
    {step: step_task(step) for step in Step if any(step in table for table in STEP_TABLES.values())}
)

__all__ = ["STEP_TASKS", "StepTask", "step_task"]
