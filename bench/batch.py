"""A batch against the sandbox: wall time against the chain-bound ideal, API and RPC calls
per launch (from the sandbox's stats), and the batch process's peak memory.

    python bench/batch.py --launches 200 --slot-ms 400 --concurrency 16
    python bench/batch.py --launches 1000 --slot-ms 50 --concurrency 16      # memory

Targets: within 1.3x the ideal; a 1000-launch batch under 400 MB peak RSS. The ideal: a
launch's transactions go one after another and each needs two slots (land, confirm), so
ideal = ceil(launches / concurrency) x transactions x 2 x slot time. Run by hand.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from launchops.sandbox.process import serving  # noqa: E402
from tests.support.pipeline import launch_document  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--slot-ms", type=int, default=400)
    parser.add_argument(
        "--prefect", action="store_true", help="run through Prefect, not --no-prefect"
    )
    parser.add_argument("--journal-url", help="e.g. postgresql://postgres@127.0.0.1/db")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="launchops-bench-"))
    folder = work / "launches"
    folder.mkdir()
    for index in range(args.launches):
        document = launch_document(key=f"bench-{index:05d}", symbol=f"B{index % 100000}")
        (folder / f"bench-{index:05d}.yaml").write_text(yaml.safe_dump(document))
    with serving("--slot-ms", str(args.slot_ms)) as sandbox:
        out, status, usage, elapsed = run_batch(args, folder, work, sandbox.url)
        stats = httpx.get(f"{sandbox.url}/_sandbox/stats").json()
    result = json.loads(out)
    transactions = 2
    ideal = math.ceil(args.launches / args.concurrency) * transactions * 2 * args.slot_ms / 1000
    airdrops = stats["rpc"].get("requestAirdrop", 0)
    report = {
        "launches": args.launches,
        "concurrency": args.concurrency,
        "slot_ms": args.slot_ms,
        "driver": "prefect" if args.prefect else "plain",
        "registered": result["counts"].get("registered", 0),
        "wall_s": round(elapsed, 1),
        "ideal_s": round(ideal, 1),
        "ratio_to_ideal": round(elapsed / ideal, 2) if ideal else None,
        "api_calls_per_launch": round(stats["apiTotal"] / args.launches, 2),
        "rpc_calls_per_launch": round((stats["rpcTotal"] - airdrops) / args.launches, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "batch_cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "exit_status": os.waitstatus_to_exitcode(status),
    }
    print(
        json.dumps(report, indent=2)
        if args.json
        else "\n".join(f"{k:<22} {v}" for k, v in report.items())
    )


def run_batch(args: argparse.Namespace, folder: Path, work: Path, url: str) -> tuple:
    """`launchops batch` in its own process: its output, exit status, rusage and wall time."""
    env = {
        **os.environ,
        "LAUNCHOPS_HOME": str(work / "home"),
        "LAUNCHOPS_BASE_URL": f"{url}/v1",
        "LAUNCHOPS_RPC_URL": url,
        "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
        "LAUNCHOPS_API_RATE": "1000",
        "LAUNCHOPS_RPC_RATE": "2000",
        "PREFECT_HOME": str(work / "prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    if args.journal_url:
        env["LAUNCHOPS_JOURNAL_URL"] = args.journal_url
    command = [sys.executable, "-m", "launchops.cli", "batch", str(folder), "--json"]
    command += ["--concurrency", str(args.concurrency)]
    command += [] if args.prefect else ["--no-prefect"]
    started = time.perf_counter()
    batch = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    out = batch.stdout.read() if batch.stdout else b""
    _, status, usage = os.wait4(batch.pid, 0)
    return out, status, usage, time.perf_counter() - started


if __name__ == "__main__":
    main()
