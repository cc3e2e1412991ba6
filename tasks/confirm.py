"""The confirm step as a Prefect task, thin over launchops.pipeline.steps.confirm."""

from __future__ import annotations

from prefect import task

from launchops.pipeline import steps
from tasks.context import context
from tasks.options import STEP_TASK


@task(name="confirm", **STEP_TASK)
async def confirm_step(context_name: str, key: str) -> None:
    await steps.confirm(context(context_name), key)
