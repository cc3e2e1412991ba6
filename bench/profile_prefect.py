"""Where the Prefect path's time goes: py-spy on the batch process and on the Prefect
server (with its subprocesses) during one batch through the batch flow, then the top
frames of each, grouped by what they do (task-run engine, events, logs to the API,
result handling, client calls, the server's services and database).

    python bench/profile_prefect.py --launches 100 --concurrency 16 [--server-db sqlite]

Needs py-spy (pip install py-spy) and, for its attaching, root or ptrace rights. By hand.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.prefect_path import Bench, _server, airdrop  # noqa: E402
from launchops.sandbox.process import serving  # noqa: E402

# What a frame does, by the first of these found in its file path or function.
GROUPS = [
    ("journal, steps, RPC (launchops itself)", ("launchops/", "solana/", "solders")),
    ("task-run engine (states, contexts)", ("task_engine", "task_runs", "tasks.py")),
    ("events (building, sending)", ("prefect/events/",)),
    ("logs to the API and console", ("prefect/logging", "logging/__init__", "rich/")),
    ("results and caching", ("results.py", "cache_policies", "transactions.py")),
    ("client calls (httpx)", ("prefect/client/", "httpx", "httpcore")),
    ("server: services (recorder, events, triggers)", ("prefect/server/services", "server/events")),
    ("server: database (SQLAlchemy, driver)", ("sqlalchemy", "asyncpg", "aiosqlite", "sqlite")),
    ("server: API (FastAPI, models)", ("prefect/server/api", "fastapi", "starlette", "pydantic")),
]


def group_of(frame: str) -> str:
    for name, marks in GROUPS:
        if any(mark in frame for mark in marks):
            return name
    return "other"


def summarize(raw: Path, top: int = 15) -> dict[str, object]:
    """Self time by group (the leaf frame decides) and inclusive time of the top frames."""
    by_group: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        by_group[group_of(frames[-1])] += count
        for frame in set(frames):
            inclusive[frame] += count
    share = {k: round(100 * v / total, 1) for k, v in by_group.most_common()}
    frames = [(f, round(100 * n / total, 1)) for f, n in inclusive.most_common(top)]
    return {"samples": total, "self_time_percent_by_group": share, "top_inclusive": frames}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--slot-ms", type=int, default=400)
    parser.add_argument("--server-db", choices=["sqlite", "postgres"], default="postgres")
    args = parser.parse_args()
    from base58 import b58encode
    from solders.keypair import Keypair

    key = Keypair()
    args.key, args.journal_url, args.rounds = b58encode(bytes(key)).decode(), None, 1
    work = Path(tempfile.mkdtemp(prefix="launchops-profile-"))
    with serving("--slot-ms", str(args.slot_ms)) as sandbox, _server(work, args.server_db) as srv:
        airdrop(sandbox.url, key)
        bench = Bench(args, work, sandbox.url)
        bench.server = srv
        folder = bench.folder("profile")
        server_raw, batch_raw = work / "server.txt", work / "batch.txt"
        spy = ["py-spy", "record", "--format", "raw", "--rate", "200", "--nonblocking"]
        server_spy = subprocess.Popen(
            [*spy, "--subprocesses", "-p", str(srv.process.pid), "-o", str(server_raw)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1)
        command = [sys.executable, "-m", "launchops.cli", "batch", str(folder), "--json"]
        command += ["--concurrency", str(args.concurrency)]
        started = time.perf_counter()
        subprocess.run(
            [*spy, "-o", str(batch_raw), "--", *command],
            env=bench.env("profile", **bench.server_env("profile")),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        wall = time.perf_counter() - started
        time.sleep(3)  # the server's services finish what the batch sent
        server_spy.send_signal(2)
        server_spy.wait(timeout=60)
    report = {
        "launches": args.launches,
        "wall_s": round(wall, 1),
        "batch_process": summarize(batch_raw),
        "server": summarize(server_raw),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
