"""A batch spread over its work pool's workers, the Prefect way: the batch's flow run
works a share itself and asks, for each other worker online in the pool, for a run of
the `batch-part` deployment (a subflow run on the pool, which a free worker takes).

Nothing is split ahead: every participant claims the batch's next unclaimed launch in
the journal as each of its lanes comes free (`launchops.pipeline.sharing`), so the work
balances itself (a fast worker takes more, a late one what is left) and the journal's
lease keeps anything from running twice. Each worker runs its steps as task runs of its own flow
run; the batch's flow run writes the one report, from the journal, for every launch.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

PART_FLOW = "batch-part"
OFFER_POLL_SECONDS = 0.5


def part_deployment(batch_deployment: str) -> str:
    """The part deployment beside a batch deployment, by the one naming rule both
    `launchops deploy` (`batch-PROFILE`, `batch-part-PROFILE`) and prefect.yaml (`batch`,
    `batch-part`) follow: the batch's name with `batch` made `batch-part`."""
    suffix = batch_deployment.removeprefix("batch")
    return f"{PART_FLOW}/{PART_FLOW}{suffix}"


@dataclass
class Spread:
    """Who works a batch: this flow run and its parts' flow runs, and each one's lanes."""

    participants: int = 1
    lanes: int = 1
    parts: list[Any] = field(default_factory=list)  # prefect FlowRun, one per part


async def spread_batch(
    launches: int,
    batch: str,
    profile: str,
    profiles_file: str | None,
    concurrency: int,
    base_url: str | None = None,
) -> Spread:
    """Ask for a part per other online worker of this flow run's pool, at most one per
    launch file but this run's (none when the flow run does not come from a pool's
    deployment, or no part deployment exists); each claims launches of `batch` once
    they are offered in the journal, as its lanes come free."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.objects import WorkerStatus
    from prefect.context import get_run_context
    from prefect.deployments import arun_deployment
    from prefect.exceptions import ObjectNotFound
    from prefect.runtime import deployment

    flow_run = get_run_context().flow_run  # type: ignore[union-attr]
    if flow_run is None or not flow_run.deployment_id or not flow_run.work_pool_name:
        return Spread(1, concurrency)
    async with get_client() as client:
        workers = await client.read_workers_for_work_pool(flow_run.work_pool_name)
        online = sum(1 for w in workers if w.status == WorkerStatus.ONLINE)
        try:
            part = await client.read_deployment_by_name(part_deployment(str(deployment.name)))
        except ObjectNotFound:
            return Spread(1, concurrency)
    participants = max(1, min(online, launches))
    lanes = max(1, math.ceil(concurrency / participants))
    spread = Spread(participants, lanes)
    for _ in range(1, participants):
        parameters = {
            "batch": batch,
            "lanes": lanes,
            "profile": profile,
            "profiles_file": profiles_file,
            "base_url": base_url,
        }
        run = await arun_deployment(
            part.id, parameters=parameters, timeout=0, tags=["launchops", "batch-part"]
        )
        spread.parts.append(run)
    return spread


async def offered(journal: Any, batch: str, patience: float = 900.0) -> bool:
    """Wait until the batch's flow run (whose id `batch` is) offered its launches in the
    journal: True then; False when it ended first, or after `patience` seconds."""
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + patience
    async with get_client() as client:
        while time.monotonic() < deadline:
            if await journal.offered(batch):
                return True
            run = await client.read_flow_run(UUID(batch)) if batch else None
            if run is None or (run.state is not None and run.state.is_final()):
                return False
            await asyncio.sleep(OFFER_POLL_SECONDS)
    return False


async def finish_spread(spread: Spread) -> dict[str, str]:
    """Once every launch is settled: a part no worker has started yet is cancelled (there
    is nothing left for it); the parts' states, by flow run name."""
    from prefect.client.orchestration import get_client
    from prefect.states import Cancelled

    states: dict[str, str] = {}
    async with get_client() as client:
        for part in spread.parts:
            run = await client.read_flow_run(part.id)
            if run.state is not None and (run.state.is_scheduled() or run.state.is_pending()):
                await client.set_flow_run_state(
                    run.id, Cancelled(message="the batch finished without it"), force=True
                )
                run = await client.read_flow_run(part.id)
            states[run.name] = run.state.name if run.state else "unknown"
    return states
