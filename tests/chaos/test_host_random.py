"""launchops leaves the program's `random` module alone: its jitter, request ids, tip
picks and ports come from generators of its own. A program that seeds the module (a
simulation's `random.seed(42)`; Hypothesis, for every example, in each of the suite's
processes) neither sees its sequence moved by a launch nor makes two launchops processes
draw alike: the same first request id from two clients would let one take the other's
answer for its own, the same port two sandboxes fight over."""

from __future__ import annotations

import asyncio
import random

from launchops.chain.rpc import ChainRpc
from launchops.pipeline.batch import run_batch
from launchops.sandbox.process import free_port
from tests.support.pipeline import context_for, set_faults, stats, write_launch

LAUNCHES = 3


async def test_a_batch_retrying_through_faults_draws_nothing_from_the_random_module(
    sandbox_factory, tmp_path
):
    """Every kind of jittered wait runs (service and RPC calls asked again, a blockhash
    expired and created again, register waiting for the indexer), the fault mix drawn at
    random; the module's state after the batch is the state the program seeded."""
    mix = random.Random()
    seed = mix.randrange(2**32)
    mix.seed(seed)
    sandbox = sandbox_factory(slot_ms=20, seed=seed)
    folder = tmp_path / "launches"
    for n in range(LAUNCHES):
        write_launch(folder, f"r-{n}.yaml", key=f"host-random-{n}", symbol=f"HR{n}")
    set_faults(
        sandbox,
        api_error_rate=round(mix.uniform(0.1, 0.3), 2),
        rpc_error_rate=round(mix.uniform(0.05, 0.2), 2),
        rpc_faults={mix.choice(["wrong_id", "not_json", "http_504"]): 0.1},
        expire_next=1,
        register_unindexed_slots=mix.randrange(1, 20),
    )
    random.seed(42)
    seeded = random.getstate()
    async with context_for(sandbox, tmp_path, ws_url="none") as ctx:
        rows = await asyncio.wait_for(run_batch(ctx, sorted(folder.glob("*.yaml"))), 120)
    moved = random.getstate() != seeded
    assert [str(r.state) for r in rows] == ["registered"] * LAUNCHES, (
        seed,
        [(r.state, r.error) for r in rows],
    )
    assert stats(sandbox)["launches"]["mintsOnChain"] == LAUNCHES, seed
    assert not moved, f"a launch moved the random module's sequence (fault mix seed {seed})"


async def test_clients_and_ports_seeded_alike_still_draw_apart():
    """Two processes with the module seeded alike are two clients here, each made just
    after the same seed: their first request ids and their free ports differ."""
    ids, ports = set(), set()
    for _ in range(2):
        random.seed(42)
        rpc = ChainRpc("http://127.0.0.1:9/")
        ids.add(next(rpc._ids))
        await rpc.close()
        random.seed(42)
        ports.add(free_port())
    assert len(ids) == 2 and len(ports) == 2, (ids, ports)
