"""README's several-machines set-up, as a person follows it, on one machine: the block of
"Running on several machines" read from README.md and run line by line (PostgreSQL, a
Prefect server asking for auth, `launchops deploy --pool`, two workers as two machines,
a batch run by hand), with only its placeholders filled in; and prefect.yaml's
deployments made by `prefect deploy --all` as "Schedules and several workers" says, a
batch of them spread over two workers.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import HTTPServer
from pathlib import Path
from typing import Any, TypeVar

import pytest
from solders.keypair import Keypair

from tests.support import forks, prefect_db
from tests.support.pipeline import stats, write_launch
from tests.support.postgres import database, fresh_names, journal_rows
from tests.support.prefect_pool import (
    Hook,
    PrefectServer,
    Worker,
    airdrop,
    free_port,
    slowed_until,
)
from tests.support.readme_shell import (
    LONG_RUNNING,
    Line,
    Ran,
    Shell,
    bash_block,
    fill,
    section,
    steps,
    wait_healthy,
    wait_online,
)

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parents[2]
MACHINES = "Running on several machines"
POOL = "launchops"  # the README's pool name, kept

# The README's placeholders and what this run puts in their place ({...}: this run's
# values); nothing else of a line changes.
PLACEHOLDERS = {
    "DBHOST": "127.0.0.1",  # the machine's PostgreSQL
    # fresh databases each run (createdb makes them), dropped after
    "-U postgres prefect ": "-U postgres {prefect_db} ",
    "-U postgres launchops": "-U postgres {journal_db}",
    ":5432/prefect": ":5432/{prefect_db}",
    ":5432/launchops": ":5432/{journal_db}",
    # no TLS proxy here (the caddy line is not run): clients call the server on loopback,
    # on a free port
    "https://prefect.example.internal/api": "http://127.0.0.1:{port}/api",
    "--port 4200": "--port {port}",
    # the sandbox, not the public service
    "--profile mainnet": "--profile sandbox",
    "batch/batch-mainnet": "batch/batch-sandbox",
    # the creator's key: a fresh one, airdropped on the sandbox, in a 0600 file
    "/etc/launchops/creator.json": "{key_file}",
    "< creator.json": "< {key_file}",
    "/srv/launches": "{launches}",  # a folder of launch files this test writes
    "/srv/launchops": "{checkout}",  # this checkout
    "https://hooks.example.com/launchops": "{hook}",  # a webhook receiver of this test
}
# Lines not run: the install (this checkout is installed already) and the TLS proxy.
NOT_RUN = ("pip install ", "caddy ")
LAUNCHES = 4
# A slot a second: a launch takes ~4 s, so a batch lasts well past the ~5 s its part
# takes to start on the other worker (at 400 ms the margin was a second or two).
SLOT_MS = 1000
SCHEDULES = "Schedules and several workers"
AUTH = "launchops:readme-machines-auth"  # prefect.yaml's server asks for it too
SPREAD = 6
Built = TypeVar("Built", "Site", "YamlPool")  # what a fixture starts and funds


def launch_env(sandbox: Any) -> dict[str, str]:
    """What the sandbox profile on one machine also needs (README: the workers need
    LAUNCHOPS_BASE_URL of the sandbox they share; its RPC follows it), and the settings
    tests/workers/test_pool.py makes a pool's batch with: status polls and rebroadcasts
    at a sandbox's pace, low call rates; two launches in flight, a lane a worker (with
    more, the batch's own flow run would take every launch before its part starts); and
    workers asking for runs every 2 s, not every 10, as docs/several-machines.md starts
    them (the part starts sooner)."""
    return {
        "LAUNCHOPS_BASE_URL": sandbox.base_url,
        "LAUNCHOPS_POLL_SECONDS": "0.05",
        "LAUNCHOPS_REBROADCAST_SECONDS": "0.5",
        "LAUNCHOPS_API_RATE": "4",
        "LAUNCHOPS_RPC_RATE": "8",
        "LAUNCHOPS_CONCURRENCY": "2",
        "PREFECT_WORKER_QUERY_SECONDS": "2",
    }


def machine_env(home: Path, **extra: str) -> dict[str, str]:
    """A machine's environment: this one's, but no Prefect or launchops setting (only what
    the README exports), its own HOME, this checkout's commands on PATH, no telemetry.
    The suite's fork server stays named (no setting of either: what runs the machine's
    `launchops` and `prefect`, tests/support/shim.py)."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PREFECT_", "LAUNCHOPS_")) or k == forks.SOCKET
    }
    path = forks.on_path(env.get("PATH", ""))
    quiet = {"DO_NOT_TRACK": "1", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    return {**env, **quiet, "PATH": path, "HOME": str(home), "COLUMNS": "200", **extra}


class Site:
    """Several machines on this one: a shell each, the sandbox they share, the key file,
    the launch files and the webhook."""

    def __init__(self, root: Path, sandbox: Any, prefect_db: str, journal_db: str) -> None:
        self.root, self.sandbox, self.journal_db = root, sandbox, journal_db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/api"
        self.key = Keypair()
        key_file = root / "creator.json"
        key_file.write_text(json.dumps(list(bytes(self.key))))
        key_file.chmod(0o600)
        launches = root / "launches"
        for index in range(LAUNCHES):
            write_launch(launches, f"m-{index}.yaml", key=f"machines-{index}", symbol=f"M{index}")
        self.hook = HTTPServer(("127.0.0.1", 0), Hook)
        threading.Thread(target=self.hook.serve_forever, daemon=True).start()
        self.values = {
            "prefect_db": prefect_db,
            "journal_db": journal_db,
            "port": str(self.port),
            "key_file": str(key_file),
            "launches": str(launches),
            "checkout": str(ROOT),
            "hook": f"http://127.0.0.1:{self.hook.server_port}/",
        }
        self.shells: list[Shell] = []
        self.skipped: list[str] = []

    def shell(self, name: str, **extra: str) -> Shell:
        env = machine_env(self.root / "homes" / name, **extra)
        shell = Shell(name, env, ROOT, self.root / "logs")
        self.shells.append(shell)
        return shell

    def play(self, shell: Shell, lines: list[tuple[str, Line]]) -> list[tuple[Line, Ran]]:
        """The lines in `shell`, long-running ones in its background, until one exits
        otherwise than the README says; each run line and what it did."""
        ran: list[tuple[Line, Ran]] = []
        for command, line in lines:
            if command.startswith(NOT_RUN):
                self.skipped.append(command)
            elif LONG_RUNNING.search(command):
                shell.start(command)
            else:
                ran.append((line, shell.run(command)))
                if ran[-1][1].returncode != line.exits:
                    break
        return ran

    def close(self) -> None:
        for shell in reversed(self.shells):  # the workers first, the server last
            shell.close()
        self.hook.shutdown()


@pytest.fixture
def site(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=SLOT_MS)
    with (
        fresh_names("prefect", "launchops") as (prefect_db, journal_db),
        funded(Site(tmp_path, sandbox, prefect_db, journal_db), sandbox) as built,
    ):
        yield built


def wrong(ran: list[tuple[Line, Ran]]) -> list[tuple[str, int, str]]:
    return [
        (r.command, r.returncode, r.output[-3000:]) for line, r in ran if r.returncode != line.exits
    ]


def basic(auth: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()}


def test_the_several_machines_section_runs_word_for_word_on_one_machine(site):
    block = bash_block(MACHINES)
    assert [p for p in PLACEHOLDERS if p not in block] == []  # none left the README
    filled = {p: value.format(**site.values) for p, value in PLACEHOLDERS.items()}
    by_step = {
        step: [(fill(line.command, filled), line) for line in lines]
        for step, lines in steps(block).items()
    }
    assert list(by_step) == ["setup", "0", "1", "2", "3", "by hand"]
    server = site.shell("server")
    ran = site.play(server, by_step["setup"] + by_step["0"] + by_step["1"])
    assert not wrong(ran), wrong(ran)
    wait_healthy(site.url)  # as a person waits for the server before going on
    auth = server.run('printf %s "$AUTH"').output  # each machine's secret store has it
    operator = site.shell("operator", AUTH=auth, **launch_env(site.sandbox))
    ran += site.play(operator, by_step["2"])
    assert not wrong(ran), wrong(ran)
    for name in ("worker-1", "worker-2"):  # two machines, each its own HOME and name
        worker = site.shell(name, AUTH=auth, **launch_env(site.sandbox))
        worker.run(f"hostname() {{ echo {name}; }}")
        ran += site.play(worker, by_step["3"])
    assert not wrong(ran), wrong(ran)
    wait_online(site.url, POOL, 2, basic(auth))
    ran += site.play(operator, by_step["by hand"])
    assert not wrong(ran), wrong(ran)
    assert sorted(site.skipped) == sorted(
        c for s in by_step.values() for c, _ in s if c.startswith(NOT_RUN)
    )
    assert [c.split()[0] for c in site.skipped] == ["pip", "caddy"]
    said = {
        line.command.split()[1]: (line, r)
        for line, r in ran
        if line.command.startswith("launchops")
    }
    check_line, check = said["check"]
    [shown] = re.findall(r'"(.*)"', check_line.comment)  # "ok prefect ... asks for auth"
    assert re.search(re.escape(shown).replace(r"\.\.\.", ".*"), " ".join(check.output.split()))
    names = set(re.findall(r"\b[a-z-]+/[a-z-]+-<profile>", block))
    assert names == {
        "batch/batch-<profile>",
        "batch-part/batch-part-<profile>",
        "registration-retry/registration-retry-<profile>",
    }
    deployed = " ".join(said["deploy"][1].output.split())
    assert all(n.replace("<profile>", "sandbox") in deployed for n in names), deployed
    counts = stats(site.sandbox)["launches"]
    assert counts["created"] == counts["mintsOnChain"] == counts["registered"] == LAUNCHES, counts
    worked = journal_workers(site.journal_db)
    assert sorted(worked) == [f"machines-{i}" for i in range(LAUNCHES)], worked
    # Each by a worker named by its machine's `hostname`; the spread over both is the
    # next test's (here the server's schedules may put a run of their own on a worker).
    assert set(worked.values()) <= {"worker-1", "worker-2"}, worked
    outputs = {k: v for shell in site.shells for k, v in shell.outputs().items()}
    assert not [k for k, v in outputs.items() if "Traceback" in v], outputs


def journal_workers(journal_db: str) -> dict[str, str]:
    """Who worked each launch, by the journal's `worker` column (none before a run has
    made the journal's tables)."""
    url = f"postgresql://postgres@127.0.0.1:5432/{journal_db}"
    return dict(journal_rows(url, "select key, worker from launches"))


class YamlPool:
    """prefect.yaml's deployments as a user makes them: a Prefect server asking for auth,
    the PostgreSQL journal, the sandbox and the creator's key file; the operator's
    commands run from this checkout, and two workers with LAUNCHOPS_CHECKOUT set."""

    def __init__(self, root: Path, sandbox: Any, server: PrefectServer, journal_db: str) -> None:
        self.root, self.sandbox, self.server = root, sandbox, server
        self.key = Keypair()
        key_file = root / "creator.json"
        key_file.write_text(json.dumps(list(bytes(self.key))))
        key_file.chmod(0o600)
        self.launches = root / "launches"
        for index in range(SPREAD):
            write_launch(self.launches, f"y-{index}.yaml", key=f"yaml-{index}", symbol=f"Y{index}")
        self.shared = {
            **launch_env(sandbox),
            "LAUNCHOPS_JOURNAL_URL": f"postgresql://postgres@127.0.0.1:5432/{journal_db}",
            "LAUNCHOPS_KEYPAIR": f"file:{key_file}",
            "LAUNCHOPS_CHECKOUT": str(ROOT),  # prefect.yaml's pull step goes there
        }
        self.workers: list[Worker] = []

    def env(self, name: str) -> dict[str, str]:
        home = self.root / name
        return {
            **machine_env(home),
            **self.server.client_env(home / "prefect"),
            **self.shared,
            "LAUNCHOPS_HOME": str(home / "launchops"),
            "LAUNCHOPS_WORKER_NAME": name,
        }

    def run(self, command: str) -> subprocess.CompletedProcess:
        """A command line as the operator types it in this checkout (nothing on stdin:
        a prompt would fail it)."""
        return subprocess.run(
            ["bash", "-c", command],
            cwd=ROOT,
            env=self.env("operator"),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def start_workers(self) -> None:
        for name in ("worker-1", "worker-2"):
            env = {**self.env(name), "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "30"}
            self.workers.append(Worker(name, POOL, env, self.root / f"{name}.log"))

    def close(self) -> None:
        for worker in self.workers:  # the workers before the server
            worker.stop()
        self.server.stop()


@contextmanager
def funded(built: Built, sandbox: Any) -> Iterator[Built]:
    """`built`'s key airdropped on `sandbox`; its processes closed after, a failed airdrop
    included."""
    try:
        airdrop(sandbox, built.key)
        yield built
    finally:
        built.close()


@pytest.fixture
def yaml_pool(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=SLOT_MS)
    with prefect_db.postgres_database("prefect") as server_db, database("journal") as journal_db:
        # No scheduler: prefect.yaml's schedules (the batch of configs/batch hourly, the
        # registration retry every 15 minutes) would put runs of their own on the workers.
        server = PrefectServer(
            tmp_path / "server",
            server_db,
            auth=AUTH,
            PREFECT_SERVER_SERVICES_SCHEDULER_ENABLED="false",
        )
        with funded(YamlPool(tmp_path, sandbox, server, journal_db), sandbox) as built:
            yield built


def test_prefect_deploy_all_makes_prefect_yamls_deployments_and_a_batch_spreads(yaml_pool):
    lines = steps(bash_block(SCHEDULES, "deploy --all"))["setup"]
    commands = [line.command for line in lines]
    assert commands == [
        f"prefect work-pool inspect {POOL} >/dev/null 2>&1"
        f" || prefect work-pool create {POOL} --type process",
        "prefect --no-prompt deploy --all",
    ]
    done = [yaml_pool.run(command) for command in commands]
    said = [d.stdout[-3000:] + d.stderr[-3000:] for d in done]
    assert [d.returncode for d in done] == [line.exits for line in lines], said
    deployed = " ".join(done[1].stdout.split())
    for name in ("batch/batch", "batch-part/batch-part", "registration-retry/registration-retry"):
        assert f"Deployment '{name}' successfully created" in deployed, deployed
    yaml_pool.start_workers()
    wait_online(yaml_pool.server.url, POOL, 2, yaml_pool.server.headers)
    [by_hand] = re.findall(r"`(prefect deployment run batch/batch\s.*?)`", section(SCHEDULES))
    command = " ".join(by_hand.split()).replace("/srv/launches", str(yaml_pool.launches))
    journal_db = yaml_pool.shared["LAUNCHOPS_JOURNAL_URL"].rsplit("/", 1)[1]
    with ThreadPoolExecutor(1) as watching:
        running = watching.submit(yaml_pool.run, command)
        # Full speed until the batch claimed its first launch, then answers slowed until
        # both workers hold a launch: the part the other worker picks up (its process
        # starts in half a minute on a loaded machine, seen) finds launches left, whatever
        # the machine's load. (The part's probe for a sandbox takes a late answer for the
        # sandbox, waiting up to 7 s, so the slowing does not make it start one of its own.)
        while not (running.done() or journal_workers(journal_db)):
            time.sleep(0.2)
        slowed_until(
            yaml_pool.sandbox,
            lambda: (
                running.done()
                or {"worker-1", "worker-2"} <= set(journal_workers(journal_db).values())
            ),
            "both workers holding a launch of the batch",
            latency_ms=2000,
            within=300,
        )
        ran = running.result()
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    counts = stats(yaml_pool.sandbox)["launches"]
    assert counts["created"] == counts["mintsOnChain"] == counts["registered"] == SPREAD, counts
    worked = journal_workers(journal_db)
    assert sorted(worked) == [f"yaml-{i}" for i in range(SPREAD)], worked
    assert set(worked.values()) == {"worker-1", "worker-2"}, worked  # batch-part found
    logs = [w.log.read_text() for w in yaml_pool.workers] + [ran.stdout, ran.stderr, *said]
    assert not [text for text in logs if "Traceback" in text], logs
