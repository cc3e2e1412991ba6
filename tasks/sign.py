"""The sign step as a Prefect task, thin over launchops.pipeline.steps.sign."""

from __future__ import annotations

from prefect import task

from launchops.pipeline import steps
from tasks.context import context
from tasks.options import STEP_TASK


@task(name="sign", **STEP_TASK)
async def sign_step(context_name: str, key: str) -> None:
    await steps.sign(context(context_name), key)
