"""What a Prefect server needs for launchops' workers, made where missing: the process
work pool, the global limits every worker shares (launches in flight, API and RPC call
rates, from the profile), the automation that marks a flow run whose worker died as
crashed, and (given a webhook) the example automation: a notification whenever a launch
needs a person. After the deployments are made, the run of a one-off launch whose time
came while deploying (`catch_up`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from launchops.tasks.events import EVENT_PREFIX
from launchops.tasks.limits import limit_names, shared_rate

from launchops.config.profiles import Profile
from launchops.urls import shown

CRASH_AUTOMATION = "launchops: crash flow runs whose worker died"
ATTENTION_AUTOMATION = "launchops: a launch needs attention"
ATTENTION_BLOCK = "launchops-needs-attention"
ATTENTION_BODY = (
    "Launch {{ event.resource['prefect.resource.name'] }} needs a person: {{ event.payload.error }}"
)


@dataclass
class Prepared:
    """What `prepare` made, and what it found already there (`kept`, updated to the
    profile's where it differed), one line each."""

    made: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


async def prepare(
    pool: str,
    settings: Profile,
    *,
    crash_after: float = 90.0,
    notify_webhook: str | None = None,
) -> Prepared:
    from prefect.client.orchestration import get_client

    done = Prepared()
    async with get_client() as client:
        await _pool(client, pool, done)
        await _limits(client, settings, done)
        await _crash_automation(client, crash_after, done)
        if notify_webhook:
            await _attention_automation(client, notify_webhook, done)
    return done


async def _pool(client: Any, pool: str, done: Prepared) -> None:
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    try:
        found = await client.read_work_pool(pool)
    except ObjectNotFound:
        try:
            await client.create_work_pool(WorkPoolCreate(name=pool, type="process"))
            done.made.append(f"work pool {pool} (process)")
            return
        except ObjectAlreadyExists:  # a worker starting meanwhile made it
            found = await client.read_work_pool(pool)
    done.kept.append(f"work pool {pool} ({found.type})")


async def _limits(client: Any, settings: Profile, done: Prepared) -> None:
    names = limit_names(settings.name)
    wanted = {names["launches"]: (settings.concurrency, None)}
    for kind, rate in (("api", settings.api_rate), ("rpc", settings.rpc_rate)):
        shared = shared_rate(names[kind], rate)
        wanted[shared.name] = (shared.limit, shared.decay)
    for name, (limit, decay) in wanted.items():
        await _limit(client, name, limit, decay, done)


async def _limit(client: Any, name: str, limit: int, decay: float | None, done: Prepared) -> None:
    from prefect.client.schemas.actions import (
        GlobalConcurrencyLimitCreate,
        GlobalConcurrencyLimitUpdate,
    )
    from prefect.exceptions import ObjectNotFound

    what = f"global limit {name}: {limit}" + (f", {decay}/s decay" if decay else "")
    try:
        found = await client.read_global_concurrency_limit_by_name(name)
    except ObjectNotFound:
        create = GlobalConcurrencyLimitCreate(
            name=name, limit=limit, slot_decay_per_second=decay or 0.0, active=True
        )
        await client.create_global_concurrency_limit(create)
        done.made.append(what)
        return
    if found.limit == limit and (found.slot_decay_per_second or 0.0) == (decay or 0.0):
        done.kept.append(what)
        return
    update = GlobalConcurrencyLimitUpdate(limit=limit, slot_decay_per_second=decay or 0.0)
    await client.update_global_concurrency_limit(name, update)
    done.kept.append(f"{what} (updated to the profile's)")


async def _crash_automation(client: Any, crash_after: float, done: Prepared) -> None:
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import AutomationCore, EventTrigger, Posture

    if await client.read_automations_by_name(CRASH_AUTOMATION):
        done.kept.append(f"automation {CRASH_AUTOMATION!r}")
        return
    ends = ("Completed", "Failed", "Cancelled", "Crashed")
    trigger = EventTrigger(
        after={"prefect.flow-run.heartbeat"},
        expect={"prefect.flow-run.heartbeat", *(f"prefect.flow-run.{e}" for e in ends)},
        match={"prefect.resource.id": ["prefect.flow-run.*"]},
        for_each={"prefect.resource.id"},
        posture=Posture.Proactive,
        threshold=1,
        within=timedelta(seconds=crash_after),
    )
    action = ChangeFlowRunState(
        state=StateType.CRASHED,
        message=f"no heartbeat for {crash_after:g} s: its worker died",
    )
    automation = AutomationCore(name=CRASH_AUTOMATION, trigger=trigger, actions=[action])
    await client.create_automation(automation)
    done.made.append(f"automation {CRASH_AUTOMATION!r} (no heartbeat for {crash_after:g} s)")


async def _attention_automation(client: Any, webhook: str, done: Prepared) -> None:
    from prefect.blocks.notifications import CustomWebhookNotificationBlock
    from prefect.events.actions import SendNotification
    from prefect.events.schemas.automations import AutomationCore, EventTrigger, Posture

    block = CustomWebhookNotificationBlock(
        name="launchops", url=webhook, json_data={"subject": "{{subject}}", "text": "{{body}}"}
    )
    block_id = await block.asave(ATTENTION_BLOCK, overwrite=True)
    existed = await client.read_automations_by_name(ATTENTION_AUTOMATION)
    for existing in existed:
        await client.delete_automation(existing.id)  # re-made: it names the block saved now
    trigger = EventTrigger(
        expect={f"{EVENT_PREFIX}.needs_attention", f"{EVENT_PREFIX}.refused"},
        match={"prefect.resource.id": f"{EVENT_PREFIX}.*"},
        posture=Posture.Reactive,
        threshold=1,
        within=timedelta(0),
    )
    action = SendNotification(
        block_document_id=block_id,
        subject="launchops: a launch needs attention",
        body=ATTENTION_BODY,
    )
    automation = AutomationCore(name=ATTENTION_AUTOMATION, trigger=trigger, actions=[action])
    await client.create_automation(automation)
    what = f"automation {ATTENTION_AUTOMATION!r} -> webhook {shown(webhook)}"
    (done.kept if existed else done.made).append(what)


# A one-off time this close when its deployment is made may be passed before the server's
# scheduler looks (every few seconds): deploy waits for it and makes the run itself.
CATCH_UP_SECONDS = 15.0
# How long after a one-off's time its deployment may still be coming (a served deployment
# is made once serving starts, which on a loaded machine can take minutes).
DEPLOYMENT_PATIENCE_SECONDS = 600.0


async def catch_up(
    one_offs: dict[str, datetime],
    within: float = CATCH_UP_SECONDS,
    patience: float = DEPLOYMENT_PATIENCE_SECONDS,
    made: Callable[[str], None] | None = None,
) -> list[str]:
    """The one-off launches (deployment "flow/name" -> time) whose time comes within
    `within` seconds and may pass before the scheduler sees their deployment: once a time
    has passed (the scheduler makes no run for a past time: only a loop of it begun before
    the time could still add one, a race the journal makes harmless, the launch held once),
    its deployment, when it has no run, gets one, scheduled at its time (due at once).
    A deployment not made yet is waited for, `patience` seconds at most. The names caught
    up, each also given to `made` as it is."""
    close = {name: at for name, at in one_offs.items() if _seconds_to(at) < within}
    caught = []
    for name, at in sorted(close.items(), key=lambda item: item[1]):
        await asyncio.sleep(max(0.0, _seconds_to(at) + 1.0))
        if await _run_made(name, at, patience):
            caught.append(name)
            if made is not None:
                made(name)
    return caught


async def _run_made(name: str, at: datetime, patience: float) -> bool:
    """Make the run of the one-off deployment `name` at `at` if it has none: whether made."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId
    from prefect.exceptions import ObjectNotFound
    from prefect.states import Scheduled

    deadline = time.monotonic() + patience
    async with get_client() as client:
        while True:
            try:
                deployment = await client.read_deployment_by_name(name)
                break
            except ObjectNotFound:
                if time.monotonic() > deadline:
                    return False
                await asyncio.sleep(1.0)
        runs = await client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment.id])),
            limit=1,
        )
        if runs:
            return False
        await client.create_flow_run_from_deployment(
            deployment.id, state=Scheduled(scheduled_time=at)
        )
    return True


def _seconds_to(at: datetime) -> float:
    return (at - datetime.now(UTC)).total_seconds()
