"""The register step as a Prefect task, thin over launchops.pipeline.steps.register."""

from __future__ import annotations

from prefect import task

from launchops.pipeline import steps
from tasks.context import context
from tasks.options import STEP_TASK


@task(name="register", **STEP_TASK)
async def register_step(context_name: str, key: str) -> None:
    await steps.register(context(context_name), key)
