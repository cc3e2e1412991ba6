"""launchops against the public JS client (`createAndRegisterLaunch`) on one sandbox.

    python bench/vs_js.py single --runs 7      # one launch, alternating; medians, ratio, RPC calls
    python bench/vs_js.py single --prefect     # the same, launchops through its Prefect flow
    python bench/vs_js.py fifty               # 50 launches: our batch vs JS one by one

Needs node and `npm ci` in tests/interop/js. Both clients talk to the same sandbox at
--slot-ms 400; create-to-registered time for launchops is read from its journal events
(validate -> registered), for JS from the client's own clock. Run by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from launchops.sandbox.process import serving  # noqa: E402
from tests.support.pipeline import launch_document  # noqa: E402

JS = ROOT / "tests" / "interop" / "js"


def stats(url: str) -> dict:
    return httpx.get(f"{url}/_sandbox/stats").json()


def funded_key(url: str) -> list[int]:
    from solana.rpc.async_api import AsyncClient
    from solders.keypair import Keypair

    from tests.support.solana import wait_for

    keypair = Keypair()

    async def fund() -> None:
        async with AsyncClient(url) as rpc:
            await wait_for(rpc, (await rpc.request_airdrop(keypair.pubkey(), 1000 * 10**9)).value)

    asyncio.run(fund())
    return list(bytes(keypair))


def env_for(url: str, home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "LAUNCHOPS_HOME": str(home),
        "LAUNCHOPS_BASE_URL": f"{url}/v1",
        "LAUNCHOPS_RPC_URL": url,
        "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
    }


PREFECT_ENV: dict[str, str] = {}  # set when the launches run through Prefect (--prefect)


def launchops_once(url: str, home: Path, key: str) -> tuple[float, int]:
    path = home / f"{key}.yaml"
    home.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(launch_document(key=key)))
    before = stats(url)["rpcTotal"]
    env = {**env_for(url, home), **PREFECT_ENV}
    driver = [] if PREFECT_ENV else ["--no-prefect"]
    run = subprocess.run(
        [sys.executable, "-m", "launchops.cli", "launch", str(path), *driver, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(run.stdout)["state"] == "registered"
    events = json.loads(
        subprocess.run(
            [sys.executable, "-m", "launchops.cli", "status", key, "--json"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
    )["events"]
    start, end = datetime.fromisoformat(events[0]["at"]), datetime.fromisoformat(events[-1]["at"])
    return (end - start).total_seconds(), stats(url)["rpcTotal"] - before


def js_once(url: str, secret: list[int]) -> tuple[float, int]:
    before = stats(url)["rpcTotal"]
    run = subprocess.run(
        ["node", str(JS / "launch.mjs"), url, url, json.dumps(secret)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(run.stdout.strip().splitlines()[-1])["milliseconds"] / 1000, stats(url)[
        "rpcTotal"
    ] - before


def single(runs: int, slot_ms: int) -> dict:
    with serving("--slot-ms", str(slot_ms)) as sandbox:
        secret = funded_key(sandbox.url)
        home = Path(tempfile.mkdtemp(prefix="launchops-vs-js-"))
        launchops_once(sandbox.url, home, "warm-up")
        ours, theirs = [], []
        for index in range(runs):  # alternating, so drift hits both alike
            ours.append(launchops_once(sandbox.url, home, f"single-{index}"))
            theirs.append(js_once(sandbox.url, secret))
    ours_median = statistics.median(t for t, _ in ours)
    theirs_median = statistics.median(t for t, _ in theirs)
    return {
        "runs": runs,
        "slot_ms": slot_ms,
        "launchops_median_s": round(ours_median, 3),
        "js_median_s": round(theirs_median, 3),
        "ratio_launchops_to_js": round(ours_median / theirs_median, 2),
        "launchops_rpc_calls": statistics.median(c for _, c in ours),
        "js_rpc_calls": statistics.median(c for _, c in theirs),
    }


def fifty(count: int, slot_ms: int, concurrency: int) -> dict:
    with serving("--slot-ms", str(slot_ms)) as sandbox:
        secret = funded_key(sandbox.url)
        started = time.perf_counter()
        run = subprocess.run(
            [
                "node",
                str(JS / "launch_each.mjs"),
                sandbox.url,
                sandbox.url,
                json.dumps(secret),
                str(count),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        js_seconds = time.perf_counter() - started
        lines = [json.loads(line) for line in run.stdout.strip().splitlines()]
        assert len(lines) == count and all(line["ok"] for line in lines), lines
        home = Path(tempfile.mkdtemp(prefix="launchops-vs-js-"))
        folder = home / "launches"
        folder.mkdir()
        for index in range(count):
            (folder / f"f{index:03d}.yaml").write_text(
                yaml.safe_dump(launch_document(key=f"fifty-{index}"))
            )
        started = time.perf_counter()
        batch = subprocess.run(
            [
                sys.executable,
                "-m",
                "launchops.cli",
                "batch",
                str(folder),
                "--no-prefect",
                "--json",
                "--concurrency",
                str(concurrency),
            ],
            capture_output=True,
            text=True,
            env=env_for(sandbox.url, home),
        )
        ours_seconds = time.perf_counter() - started
        assert json.loads(batch.stdout)["counts"] == {"registered": count}
    return {
        "launches": count,
        "slot_ms": slot_ms,
        "concurrency": concurrency,
        "js_sequential_s": round(js_seconds, 1),
        "launchops_batch_s": round(ours_seconds, 1),
        "speedup": round(js_seconds / ours_seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["single", "fifty"])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--slot-ms", type=int, default=400)
    parser.add_argument(
        "--prefect",
        action="store_true",
        help="launchops through its Prefect flows (default: --no-prefect)",
    )
    args = parser.parse_args()
    if args.prefect:
        from contextlib import ExitStack

        stack = ExitStack()
        PREFECT_ENV.update(prefect_server(stack))
    result = (
        single(args.runs, args.slot_ms)
        if args.what == "single"
        else fifty(args.count, args.slot_ms, args.concurrency)
    )
    result["driver"] = "prefect" if args.prefect else "plain"
    print(json.dumps(result, indent=2))


def prefect_server(stack: Any) -> dict[str, str]:
    """One Prefect server for every run (its start-up is not a launch's cost)."""
    home = tempfile.mkdtemp(prefix="launchops-vs-js-prefect-")
    os.environ.update(PREFECT_HOME=home, PREFECT_SERVER_ANALYTICS_ENABLED="false")
    from prefect.settings import PREFECT_API_URL
    from prefect.testing.utilities import prefect_test_harness

    stack.enter_context(prefect_test_harness(server_startup_timeout=60))
    return {
        "PREFECT_API_URL": str(PREFECT_API_URL.value()),
        "PREFECT_HOME": home,
        "PREFECT_LOGGING_LEVEL": "WARNING",
    }


if __name__ == "__main__":
    main()
