"""Follow registered launches (the journal's, or a batch's keys) until each graduates or
ends, emitting `launchops.launch.graduated` / `launchops.launch.ended` once per change
(the last status seen and announced is kept in the journal). With `max_seconds` 0 it
looks once (what the deployment `launchops deploy --watch-cron` runs on a cron)."""

from __future__ import annotations

import asyncio
import time

from launchops.tasks.context import flow_context
from launchops.tasks.watch import emit_status_change
from prefect import flow

from launchops.library.after import keys_of_files, watch_launches_in
from launchops.library.after_results import StatusChange, WatchResult


@flow(name="watch-launches", log_prints=False)
async def watch_launches_flow(
    profile: str = "sandbox",
    keys: list[str] | None = None,
    paths: list[str] | None = None,
    interval_seconds: float = 60.0,
    max_seconds: float = 0.0,
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> WatchResult:
    """Look at the watched launches (`keys`, those of the batch files at `paths`, else
    the journal's) every `interval_seconds` until none is left to watch or `max_seconds`
    passed (0: one look); the changes of every look, the last statuses."""
    started = time.monotonic()
    changes: list[StatusChange] = []
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:
        if paths:
            keys = [*(keys or []), *await keys_of_files(flow_ctx.ctx, paths)]
        while True:
            result = await watch_launches_in(flow_ctx.ctx, keys, emit=emit_status_change)
            changes.extend(result.changes)
            if not result.watching or time.monotonic() - started >= max_seconds:
                break
            await asyncio.sleep(interval_seconds)
    return WatchResult(tuple(changes), result.statuses, result.watching)
