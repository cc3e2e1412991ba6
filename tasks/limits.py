"""Limits held by the Prefect server for every worker together (global concurrency limits):
the profile's API and RPC call rates, and the launches in flight.

A call rate is a limit with slot decay. Each process takes its tokens in small batches
(one server round trip for several calls) and spends a batch at once or not at all:
tokens left unspent for `FRESH_SECONDS` are dropped. So the calls of any one second come
from tokens granted within 1 + FRESH_SECONDS seconds, at most `limit + decay x 1.1`,
which `shared_rate` keeps at 95 % of the profile's rate: no second goes over it, on any
number of workers, and about three quarters of the rate are sustained. The in-process
limiter stays in front, for the fine grain.

Launches in flight: each worker of a batch holds as many slots as it runs lanes, taken
once for its whole share (a slot per launch would cost a round trip per launch), on a
lease of about a minute that Prefect renews while the holder lives: a worker that dies
holds its slots no longer than that.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import UTC
from typing import Any

log = logging.getLogger(__name__)
Progress = Callable[[str, str, str], None]
FRESH_SECONDS = 0.1
# Launch slots are leased this long and renewed by Prefect at three quarters of it while
# their holder lives; the server's repossessor frees an expired lease within its loop (15 s
# by default). Prefect's default lease, 300 s, held a dead worker's slots for five minutes.
LEASE_SECONDS = 60.0
REPOSSESSOR_SECONDS = 15.0
WAIT_NOTICE_SECONDS = 2.0
WAIT_REPEAT_SECONDS = 15.0


@dataclass(frozen=True)
class RateLimit:
    """A global concurrency limit that lets `rate` calls a second through, all together."""

    name: str
    limit: int  # slots at most (the burst)
    decay: float  # slots freed a second (the sustained rate)
    batch: int  # tokens a process takes at once


def shared_rate(name: str, rate: float) -> RateLimit:
    """The limit and decay that keep any one second at most `rate` calls (rates of 2 a
    second or more; below, a second may see one call more)."""
    batch = max(1, int(rate // 10))
    limit = batch
    decay = max(0.05, (0.95 * rate - limit) / (1 + FRESH_SECONDS))
    return RateLimit(name, limit, round(decay, 3), batch)


def limit_names(profile: str) -> dict[str, str]:
    return {
        "api": f"launchops-api-{profile}",
        "rpc": f"launchops-rpc-{profile}",
        "launches": f"launchops-launches-{profile}",
    }


async def existing_limits(names: list[str]) -> dict[str, int]:
    """Which of these global concurrency limits the server has, with their limits."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    found: dict[str, int] = {}
    async with get_client() as client:
        for name in names:
            with suppress(ObjectNotFound):
                found[name] = (await client.read_global_concurrency_limit_by_name(name)).limit
    return found


class SharedRate:
    """`acquire()` before each call: the process's own limiter, then a token of the
    global limit, taken in batches from the server."""

    def __init__(self, shared: RateLimit, local: Any) -> None:
        self.shared = shared
        self.local = local
        self._tokens = 0
        self._fresh_until = 0.0
        self._lock = asyncio.Lock()
        self.batches = 0

    async def acquire(self) -> None:
        from prefect.concurrency.asyncio import rate_limit

        await self.local.acquire()
        async with self._lock:
            if self._tokens <= 0 or time.monotonic() > self._fresh_until:
                await rate_limit(self.shared.name, occupy=self.shared.batch, strict=True)
                self._tokens = self.shared.batch
                self._fresh_until = time.monotonic() + FRESH_SECONDS
                self.batches += 1
            self._tokens -= 1


@asynccontextmanager
async def launch_slots(
    name: str, lanes: int, present: dict[str, int], say: Progress | None = None
) -> AsyncIterator[int]:
    """Hold slots of the launches-in-flight limit for `lanes` lanes while the block runs
    (when the server has that limit); yields the lanes granted (at most the limit). The
    slots are leased for `LEASE_SECONDS` and renewed by Prefect while this process lives:
    a holder that dies frees them within that and the server's repossessor loop. While
    the slots are not free, the run says so (how many, held since when): in its log, and
    to `say` (the command's display)."""
    if name not in present:
        yield lanes
        return
    from prefect.concurrency.asyncio import concurrency

    granted = max(1, min(lanes, present[name]))
    notice = asyncio.create_task(_say_while_waiting(name, granted, say))
    try:
        async with concurrency(name, occupy=granted, lease_duration=LEASE_SECONDS, strict=True):
            notice.cancel()
            yield granted
    finally:
        notice.cancel()


async def _say_while_waiting(name: str, wanted: int, say: Progress | None) -> None:
    """A line now and then while the slots are not granted: to the run's log (WARNING, so
    a worker's output and the UI show it) and to `say`."""
    from prefect.exceptions import MissingContextError
    from prefect.logging import get_run_logger

    await asyncio.sleep(WAIT_NOTICE_SECONDS)
    while True:
        with suppress(Exception):  # a notice that cannot be read is not worth failing for
            line = await waiting_line(name, wanted)
            with suppress(MissingContextError):
                get_run_logger().warning("%s", line)
            if say is not None:
                say("", "launch slots", line)
        await asyncio.sleep(WAIT_REPEAT_SECONDS)


async def waiting_line(name: str, wanted: int) -> str:
    """What a run waiting for `wanted` slots of `name` waits on, from the server's limit:
    how many are held, and since when that count has not changed."""
    from prefect.client.orchestration import get_client

    async with get_client() as client:
        limit = await client.read_global_concurrency_limit_by_name(name)
    since = limit.updated.astimezone(UTC).strftime("%H:%M:%S UTC") if limit.updated else "?"
    lapse = LEASE_SECONDS + REPOSSESSOR_SECONDS
    return (
        f"waiting for {wanted} launch slot{'s' if wanted != 1 else ''} of {name}: "
        f"{limit.active_slots} of {limit.limit} held by other runs since {since} "
        f"(a holder that died frees its slots within {lapse:g} s)"
    )
