"""Prefect tasks, each thin over plain functions of launchops: validate, and one task for
each step of the step tables (`tasks/steps.py`)."""

from launchops.tasks.steps import STEP_TASKS
from launchops.tasks.validate import validate_step

__all__ = ["STEP_TASKS", "validate_step"]
