"""launchops leaves the program's `random` module alone: its jitter, request ids, tip
picks and ports come from generators of its own. A program that seeds the module (a
simulation's `random.seed(42)`; Hypothesis, for every example, in each of the suite's
processes) neither sees its sequence moved by a launch nor makes two launchops processes
draw alike: the same first request id from two clients would let one take the other's
answer for its own, the same port two sandboxes fight over."""

from __future__ import annotations

import asyncio
import random
import threading
import traceback

from launchops.chain.rpc import ChainRpc
from launchops.pipeline.batch import run_batch
from launchops.sandbox.process import free_port
from tests.support.pipeline import context_for, set_faults, stats, write_launch

LAUNCHES = 3
DRAWS = ("random", "uniform", "randint", "randrange", "choice", "choices", "shuffle", "sample")
DRAWS += ("getrandbits", "gauss", "expovariate", "triangular", "betavariate")


def watch_the_module(monkeypatch) -> list[str]:
    """Every draw from the `random` module made on this thread (where the batch runs), as
    the stack that made it. Other threads of the process are not the batch's: a websocket's
    keepalive ping elsewhere in the suite's process draws from the module on its own."""
    made: list[str] = []
    here = threading.current_thread()
    for name in DRAWS:
        draw = getattr(random, name)

        def watched(*args, _draw=draw, **kwargs):
            if threading.current_thread() is here:
                made.append("".join(traceback.format_stack(limit=6)[:-1]))
            return _draw(*args, **kwargs)

        monkeypatch.setattr(random, name, watched)
    return made


async def test_a_batch_retrying_through_faults_draws_nothing_from_the_random_module(
    sandbox_factory, tmp_path, monkeypatch
):
    """Every kind of jittered wait runs (service and RPC calls asked again, a blockhash
    expired and created again, register waiting for the indexer), the fault mix drawn at
    random; the batch draws nothing from the module the program seeded."""
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
    made = watch_the_module(monkeypatch)
    async with context_for(sandbox, tmp_path, ws_url="none") as ctx:
        rows = await asyncio.wait_for(run_batch(ctx, sorted(folder.glob("*.yaml"))), 120)
    monkeypatch.undo()
    assert [str(r.state) for r in rows] == ["registered"] * LAUNCHES, (
        seed,
        [(r.state, r.error) for r in rows],
    )
    assert stats(sandbox)["launches"]["mintsOnChain"] == LAUNCHES, seed
    assert not made, (
        f"{len(made)} draws from the random module (fault mix seed {seed}), first:\n{made[0]}"
    )


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


def test_websockets_pings_draw_nothing_from_the_random_module(sandbox, monkeypatch):
    """websockets' keepalive pings, on the suite's background threads, draw from a
    generator of their own (`tests/conftest.py:pytest_configure`): Hypothesis seeds the
    module for every example and warns when a ping moves it mid-draw."""
    import time

    from websockets.sync.client import connect

    drawn: list[str] = []
    for name in DRAWS:
        draw = getattr(random, name)

        def watched(*args, _draw=draw, _name=name, **kwargs):
            drawn.append(f"{_name} on {threading.current_thread().name}")
            return _draw(*args, **kwargs)

        monkeypatch.setattr(random, name, watched)
    with connect(sandbox.ws_url, ping_interval=0.05, ping_timeout=5) as socket:
        time.sleep(0.5)  # about ten pings
        socket.ping().wait(5)
    assert drawn == []
