"""The submit step as a Prefect task, thin over launchops.pipeline.steps.submit."""

from __future__ import annotations

from prefect import task

from launchops.pipeline import steps
from tasks.context import context
from tasks.options import STEP_TASK


@task(name="submit", **STEP_TASK)
async def submit_step(context_name: str, key: str) -> None:
    await steps.submit(context(context_name), key)
