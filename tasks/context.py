"""Hand the launch context to tasks by name: task parameters stay plain strings (nothing
secret reaches Prefect's API), while the clients, journal and keypair stay in-process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from launchops.tasks.alerts import AlertSender

from launchops.config.profiles import Profile
from launchops.library.launches import profile_of
from launchops.pipeline.context import LaunchContext, open_context
from launchops.states import Step

ALERTS_AT_CLOSE_SECONDS = 60.0
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
    """A step's progress: to the listeners (a live display), and to the run's log at DEBUG
    only (each log line sent to the API costs the client and the server; the journal's
    events and the task runs, named by launch and step, say the same)."""
    from prefect.exceptions import MissingContextError
    from prefect.logging import get_run_logger

    with contextlib.suppress(MissingContextError):
        logger = get_run_logger()
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s %s: %s", key or "-", step, message)
    for listener in list(_LISTENERS):
        listener(key, step, message)


_ROW_LISTENERS: list[Callable[[object], None]] = []


def listen_rows(listener: Callable[[object], None]) -> None:
    """Each batch row as it changes, e.g. for a progress bar."""
    _ROW_LISTENERS.append(listener)


def row_listeners(row: object) -> None:
    for listener in list(_ROW_LISTENERS):
        listener(row)


# The task of each step: `tasks/steps.py` fills it as it makes them (the package
# `launchops.tasks` imports that module, so it is filled before any flow runs a step).
STEP_TASKS: dict[Step, Any] = {}


@dataclass
class FlowContext:
    """What a flow holds while it runs: the launch context, its name for tasks, the step
    caller that runs each step as its task, and the server's shared limits it found."""

    ctx: LaunchContext
    name: str
    settings: Profile
    limits: dict[str, int] = field(default_factory=dict)  # global limits present: name -> limit
    alerts: AlertSender | None = None  # delivers the journal's outbox of alerts

    async def call(self, step: Step, _: LaunchContext, key: str) -> None:
        """Run the step as its task. A task run that failed because the step stopped the
        launch (`tasks/quiet.py`) is the step's end, not an error: the runner reads the
        journal next; any other failure raises as the step's exception."""
        from launchops.tasks.stops import stopped

        state = await STEP_TASKS[step](self.name, key, return_state=True)
        if not stopped(state):
            await state.aresult()  # the step's own exception, raised

    @property
    def launches_limit(self) -> str:
        from launchops.tasks.limits import limit_names

        return limit_names(self.settings.name)["launches"]


def _deployment_id() -> str | None:
    """The deployment this flow run comes from (a worker, or `serve`), if any: then the
    server's global limits hold for every worker together."""
    from prefect.runtime import deployment

    return deployment.id


@asynccontextmanager
async def flow_context(
    profile: str, profiles_file: str | None, base_url: str | None = None
) -> AsyncIterator[FlowContext]:
    """The profile's launch context (`base_url` over the profile's, as `--base-url` gives
    it), registered for tasks for as long as the flow runs.
    Every state change becomes a Prefect event (an alert through the journal's outbox,
    sent again at the end if the API was away when it happened); on a worker, the API and
    RPC rates are the server's global limits (when `launchops deploy` made them), held by
    all workers."""
    from launchops.tasks.events import emit_state_change
    from launchops.tasks.limits import existing_limits, limit_names
    from launchops.tasks.secrets import secret_keypair

    settings = profile_of(profile, profiles_file, base_url)
    _quiet_task_runs()
    limits = await existing_limits(list(limit_names(profile).values())) if _deployment_id() else {}
    limiter = _shared_limiter(profile, limits) if limits else None
    async with open_context(
        settings, progress=progress, resolver=secret_keypair, limiter=limiter
    ) as ctx:
        ctx.journal.watch(emit_state_change)
        alerts = AlertSender(ctx.journal)
        ctx.journal.watch(alerts.watch)
        name = register(ctx)
        try:
            yield FlowContext(ctx, name, settings, limits, alerts)
        finally:
            forget(name)
            # Bounded: an API that hangs must not hold the flow; the outbox keeps the rest.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(ALERTS_AT_CLOSE_SECONDS):
                    await alerts.close()


def _quiet_task_runs() -> None:
    """Task runs log at WARNING: no "Finished in state Completed()" line per step, sent to
    the API and printed (six a launch); their states show in the UI all the same, and a
    failure is still logged. PREFECT_LOGGING_LEVEL=DEBUG brings the lines back."""
    task_runs = logging.getLogger("prefect.task_runs")
    if task_runs.getEffectiveLevel() == logging.INFO:
        task_runs.setLevel(logging.WARNING)


def _shared_limiter(profile: str, present: dict[str, int]) -> Callable[[str, float], object]:
    from launchops.tasks.limits import SharedRate, limit_names, shared_rate

    from launchops.pipeline.context import local_limiter

    names = limit_names(profile)

    def make(kind: str, rate: float) -> object:
        local = local_limiter(kind, rate)
        if names[kind] not in present:
            return local
        return SharedRate(shared_rate(names[kind], rate), local)

    return make
