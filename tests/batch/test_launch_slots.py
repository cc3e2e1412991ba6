"""The launches-in-flight slots on the server's global limit: leased for about a minute
(renewed by Prefect while the holder lives), and a run waiting for them says so, with how
many it wants, how many are held and since when."""

from __future__ import annotations

import asyncio
import uuid

import pytest


@pytest.fixture
def limit(prefect_server):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate

    name = f"launchops-launches-{uuid.uuid4().hex[:8]}"

    async def make() -> None:
        async with get_client() as client:
            await client.create_global_concurrency_limit(
                GlobalConcurrencyLimitCreate(name=name, limit=2, active=True)
            )

    asyncio.run(make())
    return name


def test_a_run_waiting_for_launch_slots_says_how_many_and_since_when(limit, monkeypatch):
    from launchops.tasks import limits

    monkeypatch.setattr(limits, "WAIT_NOTICE_SECONDS", 0.1)
    said: list[str] = []
    heard = asyncio.Event()

    def listener(key: str, step: str, message: str) -> None:
        if step == "launch slots":
            said.append(message)
            heard.set()

    from prefect.concurrency.asyncio import concurrency as real

    leases: list[float] = []

    def spy(*args, **kwargs):
        leases.append(kwargs["lease_duration"])
        return real(*args, **kwargs)

    monkeypatch.setattr("prefect.concurrency.asyncio.concurrency", spy)

    async def scenario() -> int:
        async with limits.launch_slots(limit, 2, {limit: 2}):  # another run holds them all
            waiting = asyncio.create_task(_take(limits, limit, listener))
            await asyncio.wait_for(heard.wait(), 30)
            assert not waiting.done()
        return await asyncio.wait_for(waiting, 30)  # granted once the holder let go

    assert asyncio.run(scenario()) == 1
    assert leases == [limits.LEASE_SECONDS] * 2 and limits.LEASE_SECONDS == 60
    assert said[0].startswith(f"waiting for 1 launch slot of {limit}: 2 of 2 held")
    assert " since " in said[0] and "UTC" in said[0]


async def _take(limits, name: str, say) -> int:
    async with limits.launch_slots(name, 1, {name: 2}, say=say) as granted:
        return granted
