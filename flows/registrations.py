"""Registration retry: register every launch whose transactions landed but which is not
registered (the service failed, the worker crashed, or it never got there). Idempotent,
and safe while a batch runs; deploy it on a schedule to mop up. It first sends the
alerts the journal still holds (a Prefect server that was away when they happened)."""

from __future__ import annotations

from datetime import timedelta

from launchops.flows.batch import finish
from launchops.flows.outcome import batch_end
from launchops.tasks.context import flow_context, row_listeners
from prefect import flow
from prefect.states import State

from launchops.library.results import BatchResult
from launchops.pipeline.batch import retry_registrations


@flow(name="registration-retry", log_prints=False)
async def registrations_flow(
    profile: str = "sandbox",
    older_than_seconds: float = 300.0,
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> BatchResult | State[BatchResult]:
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:
        if flow_ctx.alerts is not None:
            await flow_ctx.alerts.deliver()
        rows = await retry_registrations(
            flow_ctx.ctx,
            older_than=timedelta(seconds=older_than_seconds),
            call=flow_ctx.call,
            on_update=row_listeners,
        )
        result = await finish(flow_ctx.ctx, rows, "registrations")
    return batch_end(result)
