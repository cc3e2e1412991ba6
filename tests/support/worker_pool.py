"""A Prefect server with workers, a sandbox and one PostgreSQL journal, as the worker
modules run them: the environment every process gets (each its own LAUNCHOPS_HOME and
Prefect home), the operator's commands, the batch folders, the flow runs and who ran
them, the journal's rows and the batch reports. Each module adds what it alone needs."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import base58
from solders.keypair import Keypair

from tests.support.pipeline import dump_yaml, launch_document, launchops
from tests.support.postgres import journal_rows
from tests.support.prefect_pool import (
    PrefectServer,
    Worker,
    batch_report,
    descendants,
    flow_run_id,
)

ENDED = frozenset({"COMPLETED", "FAILED", "CRASHED"})  # a flow run's state types at its end


class WorkerPool:
    """The server, the workers, the sandbox and the environment every process shares;
    `settings`: the profile's settings (LAUNCHOPS_*) beside the sandbox, key and journal."""

    symbol = "P"  # the batch folders' launch files: symbols P0, P1, ...

    def __init__(
        self, root: Path, sandbox: Any, journal_db: str, server: PrefectServer, **settings: str
    ) -> None:
        self.root, self.sandbox, self.server = root, sandbox, server
        self.key = Keypair()
        self.launch_env = {
            "LAUNCHOPS_BASE_URL": sandbox.base_url,
            "LAUNCHOPS_RPC_URL": sandbox.rpc_url,
            "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
            "LAUNCHOPS_KEYPAIR": "env:LAUNCH_CREATOR_KEY",
            "LAUNCH_CREATOR_KEY": base58.b58encode(bytes(self.key)).decode(),
            "LAUNCHOPS_JOURNAL_URL": f"postgresql://postgres@127.0.0.1:5432/{journal_db}",
            **settings,
        }
        self.workers: list[Worker] = []

    def env(self, name: str, **extra: str) -> dict[str, str]:
        """The environment of machine `name` (a worker, or the operator's)."""
        home = self.root / name
        return {
            **os.environ,
            **self.server.client_env(home / "prefect"),
            **self.launch_env,
            "LAUNCHOPS_HOME": str(home / "launchops"),
            "LAUNCHOPS_WORKER_NAME": name,
            **extra,
        }

    def launchops(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """`launchops ARGS` on the operator's machine."""
        return launchops(self.env("operator"), *args, timeout=timeout)

    def prefect(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """`prefect ARGS` on the operator's machine."""
        return launchops(self.env("operator"), *args, timeout=timeout, module="prefect")

    def folder(self, name: str, count: int, **changes: Any) -> Path:
        """A batch folder of `count` launch files, keys `name-00`, `name-01`, ..."""
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=True)
        for index in range(count):
            key = f"{name}-{index:02d}"
            document = launch_document(key=key, symbol=f"{self.symbol}{index}", **changes)
            (folder / f"{key}.yaml").write_text(dump_yaml(document))
        return folder

    def run_batch(self, folder: Path, *, wait: bool = False, exits: int = 0) -> str:
        """A run of the batch deployment for `folder`: its flow run id. With `wait`, watched
        to its end: a run whose launches did not all finish ends FAILED ("Needs
        attention"), and `prefect deployment run --watch` exits 1 (`exits`)."""
        params = json.dumps({"paths": [str(folder)]})
        args = ["deployment", "run", "batch/batch-sandbox", "--params", params]
        done = self.prefect(*args, *(["--watch"] if wait else []))
        assert done.returncode == exits, done.stdout[-3000:] + done.stderr[-3000:]
        return flow_run_id(done.stdout)

    def wait_for(
        self, run_id: str, states: frozenset[str] = ENDED, timeout: float = 300
    ) -> dict[str, Any]:
        """The flow run once in one of `states`; what it was at, when not within `timeout`."""
        deadline = time.monotonic() + timeout
        while (run := self.flow_run(run_id))["state_type"] not in states:
            assert time.monotonic() < deadline, self.diagnosis(run_id)
            time.sleep(0.5)
        return run

    def diagnosis(self, run_id: str) -> str:
        """What a run that did not end in time was at (a module may say more)."""
        run = self.flow_run(run_id)
        return f"{run['state_type']} {run['state_name']}"

    def flow_run(self, run_id: str) -> dict[str, Any]:
        return self.server.api("GET", f"/flow_runs/{run_id}")

    def parts(self, parent_id: str) -> list[dict[str, Any]]:
        """The flow runs a batch's run asked for (its parts, on whichever worker)."""
        body = {"flow_runs": {"parent_flow_run_id": {"any_": [parent_id]}}}
        found = self.server.api("POST", "/flow_runs/filter", json=body)
        return [run for run in found if run["id"] != parent_id]

    def worker_running(self, run_id: str, timeout: float = 120) -> Worker:
        """The worker whose process started the flow run `run_id` (its flow-run process,
        `infrastructure_pid`, is below that worker's)."""
        deadline = time.monotonic() + timeout
        while True:
            run = self.flow_run(run_id)
            pid = str(run.get("infrastructure_pid") or "").rsplit(":", 1)[-1]
            for worker in self.workers:
                if pid.isdigit() and int(pid) in descendants(worker.process.pid):
                    return worker
            assert time.monotonic() < deadline, (run["state_type"], run.get("infrastructure_pid"))
            time.sleep(0.2)

    def rows(self, query: str, *params: str) -> list[tuple[Any, ...]]:
        """The rows `query` reads from the shared journal (none before a run has made its
        tables): read there, not by a `launchops status` process a poll."""
        return journal_rows(self.launch_env["LAUNCHOPS_JOURNAL_URL"], query, *params)

    def states(self, prefix: str) -> dict[str, tuple[str, str | None]]:
        """Each launch of the batch `prefix`: (state, worker that last took it)."""
        query = "select key, state, worker from launches where key like %s"
        return {key: (state, worker) for key, state, worker in self.rows(query, f"{prefix}-%")}

    def report(self, run_id: str) -> dict[str, Any]:
        """The batch report of flow run `run_id`, from whichever worker's home it ran in."""
        folders = list(self.root.glob("worker-*/launchops/sandbox/reports"))
        return batch_report(self.server.url, run_id, folders, self.server.headers)

    def close(self) -> None:
        for worker in self.workers:  # workers before the server (a worker outliving it hangs)
            worker.stop()
        self.server.stop()
