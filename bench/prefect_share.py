"""Prefect's share of a launch: `launch_flow` against the bare launchops functions, on the
same sandbox at --slot-ms 0, alternating runs (target: the flow adds at most 15 %).

    python bench/prefect_share.py --runs 15 [--profile-flow]

One Prefect server for the whole run (its start-up is not a launch's cost); each run is
a new launch file. `--profile-flow` prints where a flow run spends its time. By hand.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--profile-flow", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="launchops-prefect-share-"))
    os.environ.update(
        PREFECT_HOME=str(work / "prefect"),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_LOGGING_LEVEL="WARNING",
    )
    from launchops.cli.common import quiet_prefect

    quiet_prefect()  # as `launchops launch` runs its flow
    from prefect.testing.utilities import prefect_test_harness

    from launchops.sandbox.server import Sandbox, SandboxConfig

    with (
        prefect_test_harness(server_startup_timeout=60),
        Sandbox(SandboxConfig(port=0, slot_ms=0)) as sandbox,
    ):
        os.environ.update(
            LAUNCHOPS_HOME=str(work / "home"),
            LAUNCHOPS_BASE_URL=sandbox.base_url,
            LAUNCHOPS_RPC_URL=sandbox.rpc_url,
            LAUNCHOPS_EMBEDDED_SANDBOX="false",
            LAUNCHOPS_POLL_SECONDS="0.05",
        )
        bares, flows = timings(work, args.runs, args.profile_flow)
    bare_median, flow_median = statistics.median(bares), statistics.median(flows)
    print(
        json.dumps(
            {
                "runs": args.runs,
                "bare_median_s": round(bare_median, 3),
                "flow_median_s": round(flow_median, 3),
                "prefect_adds_percent": round((flow_median / bare_median - 1) * 100, 1),
            },
            indent=2,
        )
    )


def timings(work: Path, runs: int, profile_flow: bool) -> tuple[list[float], list[float]]:
    """Each run's seconds, bare and through the flow, in turn (one of each first, to warm
    up); with `profile_flow`, one more flow run under cProfile, printed."""
    from launchops.flows.launch import launch_flow

    from launchops.config.profiles import load_profile
    from launchops.pipeline.context import open_context
    from launchops.pipeline.runner import run_launch, validate
    from tests.support.pipeline import dump_yaml, launch_document

    def write(key: str) -> str:
        path = work / f"{key}.yaml"
        path.write_text(dump_yaml(launch_document(key=key)))
        return str(path)

    async def bare(path: str) -> float:
        started = time.perf_counter()
        async with open_context(load_profile("sandbox")) as ctx:
            record = await run_launch(ctx, (await validate(ctx, Path(path))).key)
        assert record.state == "registered"
        return time.perf_counter() - started

    async def flow(path: str) -> float:
        started = time.perf_counter()
        result = await launch_flow(path=path)
        assert result.state == "registered"
        return time.perf_counter() - started

    asyncio.run(bare(write("warm-bare")))
    asyncio.run(flow(write("warm-flow")))
    flows, bares = [], []
    for index in range(runs):
        bares.append(asyncio.run(bare(write(f"bare-{index}"))))
        flows.append(asyncio.run(flow(write(f"flow-{index}"))))
    if profile_flow:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        asyncio.run(flow(write("profiled")))
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return bares, flows


if __name__ == "__main__":
    main()
