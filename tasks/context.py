"""Hand the launch context to tasks by name: task parameters stay plain strings (nothing
secret reaches Prefect's API), while the clients, journal and keypair stay in-process."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from launchops.config.profiles import Profile, load_profile
from launchops.pipeline.context import LaunchContext, open_context
from launchops.states import Step

_CONTEXTS: dict[str, LaunchContext] = {}
_LISTENERS: list[Callable[[str, str, str], None]] = []


def register(ctx: LaunchContext) -> str:
    name = uuid.uuid4().hex
    _CONTEXTS[name] = ctx
    return name


def forget(name: str) -> None:
    _CONTEXTS.pop(name, None)


def context(name: str) -> LaunchContext:
    return _CONTEXTS[name]


def listen(listener: Callable[[str, str, str], None]) -> None:
    """Progress of every launch in this process, e.g. for a live display."""
    _LISTENERS.append(listener)


def progress(key: str, step: str, message: str) -> None:
    from prefect.exceptions import MissingContextError
    from prefect.logging import get_run_logger

    with contextlib.suppress(MissingContextError):
        get_run_logger().info("%s %s: %s", key or "-", step, message)
    for listener in list(_LISTENERS):
        listener(key, step, message)


_ROW_LISTENERS: list[Callable[[object], None]] = []


def listen_rows(listener: Callable[[object], None]) -> None:
    """Each batch row as it changes, e.g. for a progress bar."""
    _ROW_LISTENERS.append(listener)


def row_listeners(row: object) -> None:
    for listener in list(_ROW_LISTENERS):
        listener(row)


@dataclass
class FlowContext:
    """What a flow holds while it runs: the launch context, its name for tasks, and the
    step caller that runs each step as its task."""

    ctx: LaunchContext
    name: str
    settings: Profile

    async def call(self, step: Step, _: LaunchContext, key: str) -> None:
        from tasks import STEP_TASKS  # the step tasks import this module

        await STEP_TASKS[step](self.name, key)


@asynccontextmanager
async def flow_context(profile: str, profiles_file: str | None) -> AsyncIterator[FlowContext]:
    """The profile's launch context, registered for tasks for as long as the flow runs."""
    from tasks.secrets import secret_keypair

    settings = load_profile(profile, profiles_file=Path(profiles_file) if profiles_file else None)
    async with open_context(settings, progress=progress, resolver=secret_keypair) as ctx:
        name = register(ctx)
        try:
            yield FlowContext(ctx, name, settings)
        finally:
            forget(name)
