"""The simulation in the suite: a fixed set of seeds (LAUNCHOPS_SIM_SEEDS of them, from
LAUNCHOPS_SIM_FROM), each its own test, so a failing one is named and replays alone:

    pytest "tests/sim/test_simulation.py::test_seed[17]"
    LAUNCHOPS_SIM_SEED=17 python -m tests.sim --drivers plain   # with its scenario printed

Most seeds run the plain driver in this process (fast); every fifth a `launchops batch`
process, which may SIGKILL itself at a crash point; a few the Prefect batch flow.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from launchops.sandbox.server import Sandbox, SandboxConfig
from tests.sim.run import simulate
from tests.sim.scenario import draw
from tests.sim.world import SLOT_MS

FIRST = int(os.environ.get("LAUNCHOPS_SIM_FROM", "0"))
SEEDS = int(os.environ.get("LAUNCHOPS_SIM_SEEDS", "40"))
THROUGH_PREFECT = [
    FIRST + 100_000 + n for n in range(int(os.environ.get("LAUNCHOPS_SIM_FLOWS", "3")))
]


@pytest.fixture(scope="module")
def world() -> Iterator[Sandbox]:
    """One sandbox for every seed of the module (each seed's launches are its own)."""
    with Sandbox(SandboxConfig(port=0, slot_ms=SLOT_MS, seed=2026)) as sandbox:
        yield sandbox


def _drivers(seed: int) -> tuple[str, ...]:
    return ("cli",) if seed % 5 == 4 else ("plain",)


@pytest.mark.parametrize("seed", range(FIRST, FIRST + SEEDS))
async def test_seed(world, tmp_path, seed):
    outcome = await simulate(world, draw(seed, drivers=_drivers(seed)), tmp_path)
    assert outcome.broken is None, outcome.report()


@pytest.mark.parametrize("seed", THROUGH_PREFECT)
async def test_seed_through_prefect(world, tmp_path, seed, prefect_server):
    outcome = await simulate(world, draw(seed, drivers=("prefect",)), tmp_path)
    assert outcome.broken is None, outcome.report()
