"""pytest fixtures for testing against the sandbox.

    # conftest.py
    pytest_plugins = ["launchops.sandbox.pytest_plugin"]

`sandbox` is one sandbox for the whole test session (slots advance per call, `--slot-ms
0`); `sandbox_factory` starts more, each stopped at the end of the test that made it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from launchops.sandbox.server import Sandbox, SandboxConfig


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(SandboxConfig(port=0, slot_ms=0, seed_agents=30, seed=8004)) as running:
        yield running


@pytest.fixture
def sandbox_factory() -> Iterator[Callable[..., Sandbox]]:
    started: list[Sandbox] = []

    def start(**options: Any) -> Sandbox:
        options.setdefault("port", 0)
        options.setdefault("slot_ms", 0)
        running = Sandbox(SandboxConfig(**options)).start()
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()
