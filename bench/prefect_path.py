"""The same batch through Prefect and through the plain driver, alternating: wall time, the
ratio to the chain-bound ideal, and the CPU of every process (the batch process, the
Prefect server, the workers and the flow-run processes they start).

    python bench/prefect_path.py --launches 100 --concurrency 16 --rounds 3
    python bench/prefect_path.py --launches 1000 --concurrency 64 --modes server
    python bench/prefect_path.py --launches 200 --modes plain,pool1,pool2 --journal postgres

Modes: `plain` (`launchops batch --no-prefect`), `server` (the batch flow against a
running `prefect server start`, as a worker runs it), `temporary` (the flow with Prefect's
temporary server, as `launchops batch` does on a fresh machine), `poolN` (a run of the
batch deployment on a process work pool served by N workers). The ideal: ceil(launches /
concurrency) x 2 transactions x 2 slots. Run by hand, on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from launchops.sandbox.process import serving  # noqa: E402
from tests.support.pipeline import dump_yaml, launch_document  # noqa: E402
from tests.support.postgres import database  # noqa: E402
from tests.support.prefect_pool import PrefectServer, Worker, descendants  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    """CPU seconds of a process and every process below it (live, and reaped children)."""
    total = 0.0
    for one in [pid, *descendants(pid)]:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
        total += (utime + stime + cutime + cstime) / TICK
    return total


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path, sandbox_url: str) -> None:
        self.args, self.work, self.url = args, work, sandbox_url
        self.journal_url = args.journal_url
        self.server: PrefectServer | None = None
        self.workers: dict[int, list[Worker]] = {}

    def env(self, name: str, **extra: str) -> dict[str, str]:
        env = {
            **os.environ,
            "LAUNCHOPS_HOME": str(self.work / name / "home"),
            "LAUNCHOPS_BASE_URL": f"{self.url}/v1",
            "LAUNCHOPS_RPC_URL": self.url,
            "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
            "LAUNCHOPS_KEYPAIR": "env:LAUNCH_CREATOR_KEY",
            "LAUNCH_CREATOR_KEY": self.args.key,
            "LAUNCHOPS_API_RATE": "1000",
            "LAUNCHOPS_RPC_RATE": "2000",
            "LAUNCHOPS_CONCURRENCY": str(self.args.concurrency),
            "LAUNCHOPS_WORKER_NAME": name,
            "PREFECT_HOME": str(self.work / name / "prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            **extra,
        }
        if self.journal_url:
            env["LAUNCHOPS_JOURNAL_URL"] = self.journal_url
        return env

    def folder(self, tag: str) -> Path:
        folder = self.work / f"launches-{tag}"
        folder.mkdir()
        for index in range(self.args.launches):
            key = f"{tag}-{index:05d}"
            document = launch_document(key=key, symbol=f"B{index % 100000}")
            (folder / f"{key}.yaml").write_text(dump_yaml(document))
        return folder

    # ── one run per mode ────────────────────────────────────────────────────

    def run(self, mode: str, tag: str) -> dict[str, Any]:
        folder = self.folder(tag)
        if mode.startswith("pool"):
            return self.pool_run(int(mode[4:]), folder)
        extra: dict[str, str] = {}
        if mode == "server":
            extra = self.server_env("batch")
        elif mode == "temporary":  # one Prefect home, as a user's: migrated by the warm-up
            extra = {"PREFECT_HOME": str(self.work / "temporary-prefect")}
        server_cpu = cpu_of(self.server.process.pid) if mode == "server" and self.server else 0
        command = [sys.executable, "-m", "launchops.cli", "batch", str(folder), "--json"]
        command += ["--concurrency", str(self.args.concurrency)]
        command += ["--no-prefect"] if mode == "plain" else []
        started = time.perf_counter()
        batch = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env(tag, **extra)
        )
        out = batch.stdout.read() if batch.stdout else b""
        _, _status, usage = os.wait4(batch.pid, 0)
        wall = time.perf_counter() - started
        counts = json.loads(out)["counts"] if out else {}
        cpu = {"batch": usage.ru_utime + usage.ru_stime}
        if mode == "server" and self.server:
            cpu["server"] = cpu_of(self.server.process.pid) - server_cpu
        return self.row(mode, wall, counts, cpu, usage.ru_maxrss / 1024)

    def server_env(self, name: str) -> dict[str, str]:
        assert self.server is not None
        return self.server.client_env(self.work / name / "prefect")

    def pool_run(self, workers: int, folder: Path) -> dict[str, Any]:
        assert self.server is not None
        pool = self.workers[workers]
        before = {w.name: cpu_of(w.process.pid) for w in pool}
        server_before = cpu_of(self.server.process.pid)
        params = json.dumps({"paths": [str(folder)]})
        command = [sys.executable, "-m", "prefect", "deployment", "run"]
        command += ["batch/batch-sandbox", "--params", params, "--watch"]
        env = self.env("operator", **self.server_env("operator"))
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - started
        cpu = {w.name: cpu_of(w.process.pid) - before[w.name] for w in pool}
        cpu["server"] = cpu_of(self.server.process.pid) - server_before
        registered = done.stdout.count("Completed") and self.registered(folder)
        return self.row(f"pool{workers}", wall, {"registered": registered}, cpu, None)

    def registered(self, folder: Path) -> int:
        env = self.env("operator")
        done = subprocess.run(
            [sys.executable, "-m", "launchops.cli", "status", "--json"],
            capture_output=True,
            text=True,
            env=env,
        )
        keys = {p.stem for p in folder.glob("*.yaml")}
        rows = json.loads(done.stdout) if done.returncode == 0 else []
        return sum(1 for r in rows if r["key"] in keys and r["state"] == "registered")

    def row(
        self, mode: str, wall: float, counts: dict[str, int], cpu: dict[str, float], rss: Any
    ) -> dict[str, Any]:
        args = self.args
        ideal = math.ceil(args.launches / args.concurrency) * 2 * 2 * args.slot_ms / 1000
        return {
            "mode": mode,
            "registered": counts.get("registered", 0),
            "wall_s": round(wall, 2),
            "ratio_to_ideal": round(wall / ideal, 2) if ideal else None,
            "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
            "cpu_total_s": round(sum(cpu.values()), 2),
            "peak_rss_mb": round(rss, 1) if rss else None,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--slot-ms", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", default="plain,server,temporary")
    parser.add_argument("--journal", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--server-db", choices=["sqlite", "postgres"], default="postgres")
    args = parser.parse_args()
    from solders.keypair import Keypair

    key = Keypair()
    args.key = __import__("base58").b58encode(bytes(key)).decode()
    work = Path(tempfile.mkdtemp(prefix="launchops-prefect-path-"))
    modes = args.modes.split(",")
    pools = sorted({int(m[4:]) for m in modes if m.startswith("pool")})
    with ExitStack() as stack:
        sandbox = stack.enter_context(serving("--slot-ms", str(args.slot_ms)))
        airdrop(sandbox.url, key)
        args.journal_url = None
        if args.journal == "postgres" or pools:
            name = stack.enter_context(database("bench_journal"))
            args.journal_url = f"postgresql://postgres@127.0.0.1:5432/{name}"
        bench = Bench(args, work, sandbox.url)
        rows: list[dict[str, Any]] = []
        plain = [m for m in modes if not m.startswith("pool")]
        if "temporary" in plain:
            print(json.dumps({"warm-up": bench.run("temporary", "warmup")}), flush=True)
        if plain:
            with ExitStack() as servers:
                if "server" in plain:
                    bench.server = servers.enter_context(_server(work / "s0", args.server_db))
                rows += _rounds(bench, plain, args.rounds, "a")
        for count in pools:  # a fresh server and pool for each number of workers
            with ExitStack() as servers:
                bench.server = servers.enter_context(_server(work / f"p{count}", args.server_db))
                bench.workers[count] = servers.enter_context(_pool(bench, count))
                rows += _rounds(bench, [f"pool{count}"], args.rounds, f"p{count}")
    print(json.dumps({"launches": args.launches, "runs": rows}, indent=2))


def _rounds(bench: Bench, modes: list[str], rounds: int, tag: str) -> list[dict[str, Any]]:
    rows = []
    for round_ in range(rounds):
        for mode in modes:
            row = bench.run(mode, f"{tag}{round_}{mode}")
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def airdrop(url: str, key: Any) -> None:
    """10,000 SOL for the launches' rent and fees (every worker signs with this key)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "requestAirdrop"}
    body["params"] = [str(key.pubkey()), 10_000 * 10**9]
    answer = httpx.post(url, json=body).json()
    assert "result" in answer, answer
    time.sleep(2)


class _server:
    """A `prefect server start` on its own database (PostgreSQL or a SQLite file)."""

    def __init__(self, home: Path, db: str) -> None:
        self.home, self.db = home, db
        self.stack = ExitStack()

    def __enter__(self) -> PrefectServer:
        if self.db == "postgres":
            name = self.stack.enter_context(database("bench_prefect"))
            self.server = PrefectServer(self.home, name)
        else:
            url = f"sqlite+aiosqlite:///{self.home / 'prefect.db'}"
            self.server = PrefectServer(self.home, "-", PREFECT_API_DATABASE_CONNECTION_URL=url)
        return self.server

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self.stack.close()


class _pool:
    """`launchops deploy --pool bench`, then N workers on it."""

    def __init__(self, bench: Bench, count: int) -> None:
        self.bench, self.count = bench, count

    def __enter__(self) -> list[Worker]:
        bench = self.bench
        env = bench.env("operator", **bench.server_env("operator"))
        deploy = [sys.executable, "-m", "launchops.cli", "deploy", "--pool", "bench"]
        deploy += ["--batch", str(bench.work), "--batch-cron", "0 0 1 1 *", "--json"]
        done = subprocess.run(deploy, capture_output=True, text=True, env=env, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        self.workers = []
        for index in range(self.count):
            name = f"w{index}"
            extra = {**bench.server_env(name), "PREFECT_WORKER_QUERY_SECONDS": "1"}
            log = bench.work / f"{name}.log"
            self.workers.append(Worker(name, "bench", bench.env(name, **extra), log))
        time.sleep(8)  # the workers come online
        return self.workers

    def __exit__(self, *exc: object) -> None:
        for worker in self.workers:
            worker.stop()


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    main()
