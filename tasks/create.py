"""The create step as a Prefect task, thin over launchops.pipeline.steps.create."""

from __future__ import annotations

from prefect import task

from launchops.pipeline import steps
from tasks.context import context
from tasks.options import STEP_TASK


@task(name="create", **STEP_TASK)
async def create_step(context_name: str, key: str) -> None:
    await steps.create(context(context_name), key)
