"""The validate step as a Prefect task: parse and check the file, record it in the journal."""

from __future__ import annotations

from pathlib import Path

from launchops.tasks.context import context
from prefect import task
from prefect.cache_policies import NO_CACHE

from launchops.pipeline.runner import validate


def _run_name() -> str:
    """`validate ui-00.yaml`: the file's name, not its whole path, in the UI's graph."""
    from prefect.runtime import task_run

    return f"validate {Path(task_run.parameters['path']).name}"


@task(name="validate", task_run_name=_run_name, cache_policy=NO_CACHE, persist_result=False)
async def validate_step(context_name: str, path: str, replace: bool = False) -> str:
    record = await validate(context(context_name), Path(path), replace=replace)
    return record.key
