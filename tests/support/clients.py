"""Clients of a sandbox, as fixtures (a pytest plugin of tests/conftest.py): the launchops
client with no retries, so a test sees the first answer, and a Solana JSON-RPC client."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from solana.rpc.async_api import AsyncClient

from launchops.api.client import AsyncServiceClient, RetryPolicy
from launchops.sandbox.pytest_plugin import Sandbox


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[AsyncServiceClient]:
    async with AsyncServiceClient(sandbox.base_url, retry=RetryPolicy(attempts=1)) as c:
        yield c


@pytest.fixture
async def rpc(sandbox: Sandbox) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(sandbox.rpc_url) as c:
        yield c
