"""The client's tests' service: a real HTTP server on loopback whose answers each test
scripts (tests/support/scripted.py), one a module, and a client of it with a quick retry
policy, cleared for each test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from launchops.api.client import AsyncServiceClient
from tests.support.scripted import FAST, ScriptedService, served


@pytest.fixture(scope="module")
def service() -> Iterator[ScriptedService]:
    with served() as scripted:
        yield scripted


@pytest.fixture
async def client(service: ScriptedService) -> AsyncIterator[AsyncServiceClient]:
    service.answers.clear()
    service.sticky.clear()
    service.seen.clear()
    async with AsyncServiceClient(service.url, retry=FAST, timeout=2.0) as c:
        yield c
