"""Prefect tasks, one module per step, each thin over plain functions of launchops."""

from launchops.tasks.confirm import confirm_step
from launchops.tasks.create import create_step
from launchops.tasks.register import register_step
from launchops.tasks.sign import sign_step
from launchops.tasks.submit import submit_step
from launchops.tasks.validate import validate_step

from launchops.states import Step

STEP_TASKS = {
    Step.CREATE: create_step,
    Step.SIGN: sign_step,
    Step.SUBMIT: submit_step,
    Step.CONFIRM: confirm_step,
    Step.REGISTER: register_step,
}

__all__ = [
    "STEP_TASKS",
    "confirm_step",
    "create_step",
    "register_step",
    "sign_step",
    "submit_step",
    "validate_step",
]
