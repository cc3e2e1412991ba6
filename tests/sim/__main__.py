"""The simulation by hand: many seeds, over several processes, and a summary.

    python -m tests.sim --seeds 1000 --jobs 4         # seeds 0..999, four processes
    python -m tests.sim --from 5000 --seeds 200 --drivers plain,cli,prefect
    LAUNCHOPS_SIM_SEED=17 python -m tests.sim --drivers cli   # one seed, as it ran

Each process runs its own sandbox (slots of 10 ms) and its seeds one after another; a
seed's driver is drawn among `--drivers` (cli: a `launchops batch` process, killed at a
crash point in most seeds; prefect: the batch flow on a Prefect test server of the
process's own). A seed draws the same scenario whatever `--drivers` allows, but for its
driver. Exit 1 when a seed broke an invariant; each broken seed's report says how to
replay it.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import launchops.web as web
from launchops.sandbox.server import Sandbox, SandboxConfig
from tests.sim.run import simulate
from tests.sim.scenario import draw
from tests.sim.world import SLOT_MS


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.sim", description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="first", type=int, default=0, help="the first seed")
    parser.add_argument("--seeds", type=int, default=100, help="how many seeds")
    parser.add_argument("--jobs", type=int, default=2, help="processes, each its own sandbox")
    parser.add_argument(
        "--drivers", default="plain,cli", help="drawn among: plain, cli, prefect (comma-separated)"
    )
    return parser.parse_args()


def _work(seeds: list[int], drivers: tuple[str, ...], queue: multiprocessing.Queue) -> None:
    """One process: its sandbox, its seeds; each outcome (and the faults served) queued."""
    with ExitStack() as stack:
        if "prefect" in drivers:
            from prefect.testing.utilities import prefect_test_harness

            os.environ.setdefault("PREFECT_LOGGING_LEVEL", "ERROR")
            stack.enter_context(prefect_test_harness(server_startup_timeout=120))
        sandbox = stack.enter_context(
            Sandbox(SandboxConfig(port=0, slot_ms=SLOT_MS, seed=seeds[0] if seeds else 0))
        )
        asyncio.run(_seeds(sandbox, seeds, drivers, queue))


async def _seeds(
    sandbox: Sandbox, seeds: list[int], drivers: tuple[str, ...], queue: multiprocessing.Queue
) -> None:
    for seed in seeds:
        with tempfile.TemporaryDirectory() as root:
            started = time.monotonic()
            web.post(f"{sandbox.url}/_sandbox/stats/reset", timeout=10)
            outcome = await simulate(sandbox, draw(seed, drivers=drivers), Path(root))
            served = web.get(f"{sandbox.url}/_sandbox/stats", timeout=10).json()["refused"]
            queue.put((seed, time.monotonic() - started, outcome.broken, outcome.report(), served))


def _fault(served: str) -> str:
    """A stats key (`METHOD NAME`, `METHOD /v1/path NAME`, or a plain 429/503's `METHOD`)
    as the fault's name."""
    last = served.rsplit(" ", 1)[-1]
    return last if "_" in last or last.islower() else "refused (429/503)"


def main() -> int:
    one = os.environ.get("LAUNCHOPS_SIM_SEED")
    args = _arguments()
    drivers = tuple(args.drivers.split(","))
    seeds = [int(one)] if one else list(range(args.first, args.first + args.seeds))
    jobs = max(1, min(args.jobs, len(seeds)))
    queue: multiprocessing.Queue = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=_work, args=(seeds[n::jobs], drivers, queue))
        for n in range(jobs)
    ]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    broken, served, took = [], Counter[str](), []
    for done in range(len(seeds)):
        seed, seconds, failure, report, faults = queue.get()
        took.append(seconds)
        served.update({_fault(name): n for name, n in faults.items()})
        mark = "BROKEN" if failure else "held"
        print(f"[{done + 1}/{len(seeds)}] seed {seed}: {mark} ({seconds:.1f} s)", flush=True)
        if failure or one:
            print(report, flush=True)
        if failure:
            broken.append(seed)
    for worker in workers:
        worker.join()
    total = time.monotonic() - started
    print(
        f"\n{len(seeds)} seeds, {len(seeds) - len(broken)} held every invariant, "
        f"{len(broken)} broke one{': ' + ', '.join(map(str, broken)) if broken else ''}; "
        f"{total:.0f} s in all ({sum(took) / max(len(took), 1):.1f} s a seed, {jobs} processes)"
    )
    print("faults served: " + ", ".join(f"{k} {v}" for k, v in served.most_common()))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
