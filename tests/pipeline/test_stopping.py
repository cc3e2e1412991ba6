"""A stop asked of the process (`launchops.pipeline.stopping`): a step in flight runs on for
the stop's grace and is then cut at an await point, at once after a second stop; nothing
is cut while no stop is asked. (A stopped batch, as a user stops it: tests/batch/
test_batch_stops.py.)"""

from __future__ import annotations

import asyncio
import signal
import time

import pytest

from launchops.pipeline import stopping


@pytest.fixture(autouse=True)
def _no_stop_left():
    stopping.reset()
    yield
    stopping.reset()


async def _step(seconds: float) -> float:
    """A step of `seconds`, cut or not by a stop; how long it ran."""
    started = time.monotonic()
    try:
        async with stopping.within_grace(grace=0.3):
            await asyncio.sleep(seconds)
    except stopping.StepCut as cut:
        assert str(cut) == "stopped by SIGINT"
    return time.monotonic() - started


async def test_a_step_runs_its_grace_and_is_cut_then_and_at_once_on_a_second_stop():
    assert await _step(0.05) < 0.3  # no stop: undisturbed

    loop = asyncio.get_running_loop()
    loop.call_later(0.1, stopping.ask, signal.SIGINT)
    assert 0.35 < await _step(10) < 2  # the stop at 0.1 s, its grace 0.3 s

    stopping.reset()
    loop.call_later(0.1, stopping.ask, signal.SIGINT)
    loop.call_later(0.2, stopping.ask, signal.SIGINT)
    assert 0.15 < await _step(10) < 0.3  # the second stop cuts at once

    assert await _step(10) < 0.05  # a step begun after both stops: cut at once
    stop = stopping.asked()
    assert stop is not None and (stop.name, stop.exit_code) == ("SIGINT", 130)


async def test_a_step_that_ends_within_the_grace_is_not_cut():
    asyncio.get_running_loop().call_later(0.05, stopping.ask, signal.SIGTERM)
    assert 0.15 < await _step(0.2) < 0.3
    assert stopping.asked().exit_code == 143
