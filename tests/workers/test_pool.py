"""Scheduled batches on a Prefect server with workers, as an ops team runs them: a Prefect
server on PostgreSQL, a process work pool, two `prefect worker start` processes each with
its own LAUNCHOPS_HOME and the same PostgreSQL journal, against the sandbox.

The module shares one server and its workers, and every test passes alone: the module's
fixtures make what each needs (`launchops deploy --pool` runs as the server comes up, the
16-launch batch runs once, for the tests that read it). `deploy` makes what the server
needs; a batch spreads over both workers, every launch registered once, the shared rate
limits held in every second, the events on the server; a launch needing a person
notifies a webhook; a cron batch and a one-off schedule fire with nobody acting; a worker
killed mid-launch leaves nothing for a person.

The server asks for basic auth (PREFECT_SERVER_API_AUTH_STRING) as README sets it up;
every worker, the CLI and the UI give the string, and an anonymous client gets nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from http.server import HTTPServer
from pathlib import Path
from typing import Any

import pytest

import launchops.web as web
from launchops.config.schedule import DEPLOY_LEAD_SECONDS
from launchops.exposure import probe
from tests.support import docs, prefect_db
from tests.support.pipeline import dump_yaml, launch_document, launchops, set_faults, stats
from tests.support.postgres import database
from tests.support.prefect_pool import (
    Hook,
    PrefectServer,
    Worker,
    airdrop,
    free_port,
    slowed_until,
    ui_page,
)
from tests.support.worker_pool import WorkerPool

# One Prefect server, two workers and a deployment for the whole module, its tests in order.
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("workers-pool")]
POOL = "launchops-pool"
AUTH = "launchops:pool-test-auth"  # PREFECT_SERVER_API_AUTH_STRING / PREFECT_API_AUTH_STRING
API_RATE, RPC_RATE = 4, 8  # low: the batch presses on them, and lasts while a part starts
WORKERS = ("worker-a", "worker-b")


class Pool(WorkerPool):
    """The module's pool: the server asks for auth, the profile's rates are low, a
    webhook listens."""

    def __init__(self, root: Path, sandbox: Any, journal_db: str, server: PrefectServer) -> None:
        super().__init__(
            root,
            sandbox,
            journal_db,
            server,
            LAUNCHOPS_API_RATE=str(API_RATE),
            LAUNCHOPS_RPC_RATE=str(RPC_RATE),
            LAUNCHOPS_CONCURRENCY="4",
            LAUNCHOPS_POLL_SECONDS="0.05",
            LAUNCHOPS_REBROADCAST_SECONDS="0.5",
            LAUNCHOPS_LEASE_SECONDS="20",
        )
        self.deployed: subprocess.CompletedProcess | None = None  # the first deploy --pool
        self.workers = [self._worker(name) for name in WORKERS]
        self.hook = HTTPServer(("127.0.0.1", free_port()), Hook)
        threading.Thread(target=self.hook.serve_forever, daemon=True).start()

    def _worker(self, name: str) -> Worker:
        # Workers ask for runs every 2 s, as docs/several-machines.md starts them: each
        # ask costs ~20 ms of CPU, nearly all of it the server's (this module and the
        # several machines', run alone: 102 -> 96 s of CPU, 2026-12-07).
        env = self.env(
            name,
            PREFECT_WORKER_QUERY_SECONDS="2",
            PREFECT_FLOWS_HEARTBEAT_FREQUENCY="30",
            PREFECT_LOGGING_LEVEL="INFO",
        )
        return Worker(name, POOL, env, self.root / f"{name}.log")

    def deploy(self, *extra: str) -> subprocess.CompletedProcess:
        """`launchops deploy --pool` for the spread batch's folder (made on first use)."""
        folder = self.root / "spread"
        if not folder.exists():
            self.folder("spread", 16)
        args = ["deploy", "--pool", POOL, "--batch", str(folder), "--crash-after", "45"]
        return self.launchops(*args, *extra)

    def journal(self, key: str) -> dict[str, Any]:
        done = self.launchops("status", key, "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def events(
        self, prefix: str, names: frozenset[str] | set[str] = frozenset(), within: float = 60
    ) -> list[dict[str, Any]]:
        """The server's events under `prefix`, waiting (up to `within` s) until one about
        each launch in `names` is there: a flow run's last events reach the server's
        persister after the run is already Completed."""
        end = time.monotonic() + within
        while True:
            found = self._events(prefix)
            if names <= {e["resource"]["prefect.resource.name"] for e in found}:
                return found
            if time.monotonic() > end:
                return found
            time.sleep(0.5)

    def _events(self, prefix: str) -> list[dict[str, Any]]:
        since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
        body = {"filter": {"occurred": {"since": since}, "event": {"prefix": [prefix]}}}
        page = self.server.api("POST", "/events/filter", json={**body, "limit": 50})
        found = list(page["events"])
        while page.get("next_page"):
            page = web.get(page["next_page"], headers=self.server.headers, timeout=30).json()
            found += page["events"]
        return found

    def close(self) -> None:
        super().close()
        self.hook.shutdown()


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    from launchops.sandbox.server import Sandbox, SandboxConfig

    root = tmp_path_factory.mktemp("pool")
    with (
        Sandbox(SandboxConfig(port=0, slot_ms=400)) as sandbox,
        prefect_db.postgres_database("prefect") as server_db,
        database("journal") as journal_db,
    ):
        server = PrefectServer(
            root / "server",
            server_db,
            auth=AUTH,
            PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS="2",
            PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED="true",
        )
        built = None
        try:
            built = Pool(root, sandbox, journal_db, server)
            airdrop(sandbox, built.key)
            hook = f"http://127.0.0.1:{built.hook.server_port}/"
            built.deployed = built.deploy("--notify-webhook", hook, "--json")
            assert built.deployed.returncode == 0, built.deployed.stderr[-3000:]
            yield built
        finally:
            if built is not None:
                built.close()
            else:
                server.stop()


@pytest.fixture(scope="module")
def spread(pool) -> dict[str, Any]:
    """The 16-launch batch of the deployment, run once on the pool: its flow run, its
    report, and the sandbox's counts before and after."""
    web.post(f"{pool.sandbox.url}/_sandbox/stats/reset").raise_for_status()
    before = stats(pool.sandbox)["launches"]
    run_id = pool.run_batch(pool.root / "spread")
    # Answers slowed until both workers hold a launch: the part the second worker picks up
    # (its process starts in over half a minute on a loaded machine) finds launches left.
    slowed_until(
        pool.sandbox,
        lambda: all(_worked_by(pool, "spread", name, any_state=True) for name in WORKERS),
        "both workers holding a launch of the batch",
        latency_ms=2000,
        within=300,
    )
    run = pool.wait_for(run_id)
    report = pool.report(run_id)
    return {"run": run, "report": report, "before": before, "after": stats(pool.sandbox)}


def test_deploy_makes_what_the_server_needs_once(pool):
    assert pool.deployed is not None
    made = json.loads(pool.deployed.stdout)  # the module's first deploy, with the webhook
    pool_lines = [line for line in made["made"] + made["kept"] if line.startswith("work pool")]
    assert pool_lines == [f"work pool {POOL} (process)"]  # the workers may have made it first
    limits = [line for line in made["made"] if line.startswith("global limit")]
    assert len(limits) == 3, made  # launches in flight, API rate, RPC rate
    assert sum("automation" in line for line in made["made"]) == 2
    assert {"batch-sandbox", "batch-part-sandbox"} <= set(made["deployments"])
    again = json.loads(pool.deploy("--json").stdout)
    assert not [line for line in again["made"] if "automation 'launchops: crash" in line]
    assert any(line.startswith(f"work pool {POOL}") for line in again["kept"])


# README, Running on several machines, step 2: the Secret block from the key file on stdin.
MAKE_SECRET = (
    "import sys; from prefect.blocks.system import Secret; "
    'Secret(value=sys.stdin.read().strip()).save("launch-creator", overwrite=True)'
)


def test_deploy_reads_a_key_kept_in_a_secret_block_as_the_readme_says(pool):
    assert MAKE_SECRET in docs.all_text()
    folder = pool.root / "secret-launches"
    folder.mkdir()
    (folder / "p-1.yaml").write_text(dump_yaml(launch_document(key="p-1")))  # no wallet:
    key_file = pool.root / "creator.json"
    key_file.write_text(json.dumps(list(bytes(pool.key))))
    key_file.chmod(0o600)
    env = pool.env("operator")
    with key_file.open() as stdin:
        made = subprocess.run(
            [sys.executable, "-c", MAKE_SECRET], stdin=stdin, env=env, capture_output=True
        )
    assert made.returncode == 0, made.stderr[-3000:]
    args = ["deploy", "--pool", POOL, "--launches", str(folder)]
    secret = {**env, "LAUNCHOPS_KEYPAIR": "prefect-secret:launch-creator"}
    deployed = _launchops(secret, *args)
    assert deployed.returncode == 0, deployed.stderr[-3000:]
    assert "deployed batch-part/batch-part-sandbox" in " ".join(deployed.stdout.split())
    absent = _launchops({**env, "LAUNCHOPS_KEYPAIR": "prefect-secret:absent"}, *args)
    assert absent.returncode == 2  # refused: nothing deployed
    assert "no Secret block 'absent'" in absent.stderr
    ours = [line for line in absent.stderr.splitlines() if "Warning" not in line]
    assert [line for line in ours if line.startswith("error")] == ours[-1:], absent.stderr
    assert str(pool.key) not in deployed.stdout + deployed.stderr + absent.stderr


def _launchops(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return launchops({**env, "COLUMNS": "200"}, *args, timeout=300)


def test_a_batch_spreads_over_both_workers_once_each_within_the_shared_rates(pool, spread):
    run, report, before, after = spread["run"], spread["report"], spread["before"], spread["after"]
    assert run["state_type"] == "COMPLETED", run["state"]
    assert report["counts"] == {"registered": 16}, report["counts"]
    workers = {row["worker"] for row in report["launches"]}
    assert workers == {"worker-a", "worker-b"}, workers  # spread over both
    for what in ("created", "mintsOnChain", "registered"):
        assert after["launches"][what] - before[what] == 16, (what, after["launches"])
    peaks = after["peakPerSecond"]
    assert 0 < peaks["api"] <= API_RATE and 0 < peaks["rpc"] <= RPC_RATE, peaks
    names = {f"spread-{i:02d}" for i in range(16)}
    registered = pool.events("launchops.launch.registered", names)
    keys = {e["resource"]["prefect.resource.name"] for e in registered}
    assert names <= keys
    event = next(e for e in registered if e["resource"]["prefect.resource.name"] == "spread-00")
    roles = {r["prefect.resource.role"] for r in event["related"]}
    assert {"mint", "genesis-account", "network"} <= roles
    assert "secret" not in json.dumps(event).lower()


def test_the_ui_shows_the_batch_report_and_the_launch_events(pool, spread):
    """Screenshots of the server's UI (headless Chromium, when installed): the batch's
    report artifact and the event feed with the launches' events. They are kept in
    LAUNCHOPS_SCREENSHOTS when set, to be looked at."""
    folder = Path(os.environ.get("LAUNCHOPS_SCREENSHOTS") or pool.root / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    body = {"artifacts": {"key": {"any_": ["batch-report"]}}, "sort": "CREATED_DESC"}
    [report, *_] = pool.server.api("POST", "/artifacts/filter", json=body)
    assert "16 registered" in report["description"], report["description"]
    ui = pool.server.url.removesuffix("/api")
    [event, *_] = [
        e
        for e in pool.events("launchops.launch.registered", {"spread-00"})
        if e["resource"]["prefect.resource.name"] == "spread-00"
    ]
    day = event["occurred"][:10]
    pages = {
        "batch-report": (f"{ui}/artifacts/artifact/{report['id']}", "spread-15"),
        "launch-event": (f"{ui}/events/event/{day}/{event['id']}", "solana.network"),
    }
    for name, (url, shown) in pages.items():  # as a person who typed the auth string
        text = ui_page(url, shown, folder / f"{name}.png", auth=AUTH)
        if text is None:
            pytest.skip("Chromium is not installed (apt-get install chromium)")
        assert shown in text, (name, text[-2000:])
    # Without it, the UI asks for it (a password field) and shows nothing of the batch.
    url = pages["batch-report"][0]
    text = ui_page(url, 'type="password"', folder / "no-auth.png") or ""
    assert 'type="password"' in text and "spread-15" not in text, text[-2000:]


def test_an_anonymous_client_gets_nothing_from_the_server(pool):
    """A Secret block holding a key: read with its value by a client giving the auth
    string; an anonymous request (no Authorization) is 401, and launchops sees it closed."""
    save = (
        "from prefect.blocks.system import Secret; Secret(value=SECRET).save(NAME, overwrite=True)"
    )
    code = save.replace("SECRET", "'not-a-key-0123'").replace("NAME", "'launch-creator'")
    saved = subprocess.run(
        [sys.executable, "-c", code], env=pool.env("operator"), capture_output=True, text=True
    )
    assert saved.returncode == 0, saved.stderr[-2000:]
    ask = {"include_secrets": True}
    found = pool.server.api("POST", "/block_documents/filter", json=ask)
    assert {b["name"]: b["data"] for b in found}["launch-creator"] == {"value": "not-a-key-0123"}
    for method, path in (("POST", "/block_documents/filter"), ("POST", "/deployments/filter")):
        anonymous = web.request(method, f"{pool.server.url}{path}", json=ask, timeout=30)
        assert anonymous.status_code == 401, (path, anonymous.text)
        assert "not-a-key" not in anonymous.text
    assert probe(pool.server.url).anonymous is False  # what check and deploy ask


def test_a_launch_needing_a_person_notifies_the_webhook(pool):
    set_faults(pool.sandbox, fail_tail_next=1)
    folder = pool.folder("attention", 1)
    run_id = pool.run_batch(folder, wait=True, exits=1)
    run = pool.wait_for(run_id)
    assert (run["state_type"], run["state_name"]) == ("FAILED", "Needs attention"), run
    assert pool.journal("attention-00")["state"] == "needs_attention"
    deadline = time.monotonic() + 60
    while not any("attention-00" in json.dumps(r) for r in Hook.received):
        assert time.monotonic() < deadline, Hook.received
        time.sleep(0.5)
    [note] = [r for r in Hook.received if "attention-00" in json.dumps(r)]
    assert "needs a person" in note["text"] and "failed on chain" in note["text"]


def test_a_cron_batch_and_a_one_off_schedule_fire_with_nobody_acting(pool):
    """One folder as both --batch and --launches, as README's step 2: the cron batch
    launches the plain files and leaves the scheduled one to its own deployment, which
    launches it at its time."""
    # Both times leave `deploy` room to start on a loaded machine (in CI it once checked the
    # one-off 7 s after this line, past the 5 s it was given): the cron's minute at least
    # 45 s ahead, the one-off 30 s past the lead that deploy asks for.
    now = datetime.now(UTC)
    fire = (now + timedelta(seconds=45)).replace(second=0, microsecond=0) + timedelta(minutes=1)
    folder = pool.folder("cron", 2)
    once = launch_document(key="once")
    once["name"] = "Once Token"  # its creates counted by name
    once_at = (now + timedelta(seconds=DEPLOY_LEAD_SECONDS + 30)).replace(microsecond=0)
    once["schedule"] = f"{once_at:%Y-%m-%dT%H:%M:%SZ}"
    (folder / "once.yaml").write_text(dump_yaml(once))
    cron = f"{fire.minute} {fire.hour} * * *"
    args = ["deploy", "--pool", POOL, "--batch", str(folder), "--batch-cron", cron]
    deployed = pool.launchops(*args, "--launches", str(folder), "--json")
    assert deployed.returncode == 0, deployed.stderr[-3000:]
    assert "launch-once" in json.loads(deployed.stdout)["deployments"]
    deadline = time.monotonic() + (fire - now).total_seconds() + 120
    keys = ["once", "cron-00", "cron-01"]
    while not all(_state(pool, key) == "registered" for key in keys):
        assert time.monotonic() < deadline, {key: _state(pool, key) for key in keys}
        time.sleep(2)
    [validated, *_] = pool.journal("once")["events"]  # its own run, not before its time
    at = datetime.fromisoformat(validated["at"])
    assert at.replace(tzinfo=at.tzinfo or UTC) >= once_at - timedelta(seconds=1), validated
    while not (report := _report_with(pool, "once")):  # the cron batch's, once written
        assert time.monotonic() < deadline, "the cron batch wrote no report"
        time.sleep(1)
    [left] = [row for row in report["launches"] if row["key"] == "once"]
    if left["state"] == "scheduled":  # the cron batch ran before the one-off's time
        assert report["counts"] == {"registered": 2, "scheduled": 1}, report["counts"]
        assert left["scheduledFor"] == once["schedule"], left
    else:  # after it: due, so the batch took it too; launched once all the same
        assert report["counts"] == {"registered": 3}, report["counts"]
    made = web.get(f"{pool.sandbox.url}/_sandbox/launches").json()["launches"]
    assert [c["name"] for c in made].count("Once Token") == 1, made


def _report_with(pool: Pool, key: str) -> dict[str, Any] | None:
    """The newest batch report with a row for `key`, if one was written (not merely the
    newest: the deployment's hourly batch may have written one since)."""
    found = sorted(
        pool.root.glob("worker-*/launchops/sandbox/reports/batch-*.json"),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    reports = (json.loads(path.read_text()) for path in found)
    return next((r for r in reports if any(row["key"] == key for row in r["launches"])), None)


def _state(pool: Pool, key: str) -> str | None:
    """The launch's state in the shared journal, read there (a poll by `launchops status`
    would start a process every time round)."""
    rows = pool.rows("select state from launches where key = %s", key)
    return rows[0][0] if rows else None


def test_a_worker_killed_mid_launch_leaves_nothing_for_a_person(pool):
    before = stats(pool.sandbox)["launches"]
    folder = pool.folder("kill", 10)
    # Slow answers until the kill: on a loaded machine the part's process starts late (over
    # a minute, seen), and the batch's own two lanes must not have taken every launch
    # before it does (1.5 s an answer: well over a minute for the ten, under any timeout).
    set_faults(pool.sandbox, latency_ms=1500)
    try:
        run_id = pool.run_batch(folder)
        victim = _victim_holding_a_launch(pool, run_id)
        victim.kill()  # the worker, its flow run process, everything it started
    finally:
        set_faults(pool.sandbox, latency_ms=0)
    killed_at = time.monotonic()
    run = pool.wait_for(run_id)
    finished_in = time.monotonic() - killed_at
    assert run["state_type"] == "COMPLETED", run["state"]
    # Here the dead worker's leases are taken at once (its process is gone on this
    # machine); elsewhere they lapse after LAUNCHOPS_LEASE_SECONDS (20). Either way, well
    # within the lease and the remaining launches' own time, even on a loaded machine.
    assert finished_in < 20 + 120, finished_in
    states = {f"kill-{i:02d}": _state(pool, f"kill-{i:02d}") for i in range(10)}
    assert set(states.values()) == {"registered"}, states
    after = stats(pool.sandbox)["launches"]
    for what in ("mintsOnChain", "registered"):
        assert after[what] - before[what] == 10, (what, after)
    parts = [p for p in pool.parts(run_id) if p["state_type"] != "CANCELLED"]
    [dead] = parts or [None]
    assert dead is not None, pool.parts(run_id)
    # No heartbeat for --crash-after (45 s) after the last one (every 30 s): crashed.
    crashed = pool.wait_for(dead["id"], timeout=240)
    assert crashed["state_type"] == "CRASHED", crashed["state"]
    victim.restart()


def _victim_holding_a_launch(pool: Pool, run_id: str) -> Worker:
    """The worker running the batch's part (either worker may have taken the batch's own
    flow run), once it holds a launch."""
    deadline = time.monotonic() + 120
    while not (parts := pool.parts(run_id)):
        assert time.monotonic() < deadline, "the batch asked for no part"
        time.sleep(0.2)
    victim = pool.worker_running(parts[0]["id"])
    deadline = time.monotonic() + 180  # its process started: now its first claim
    while not _worked_by(pool, "kill", victim.name):
        assert time.monotonic() < deadline, f"{victim.name} never took a launch"
        time.sleep(0.2)
    return victim


def _worked_by(pool: Pool, prefix: str, worker: str, *, any_state: bool = False) -> bool:
    """Whether `worker` holds a launch of the batch that is not registered yet (or has
    taken one at all, `any_state`)."""
    return any(
        (who or "").startswith(worker) and (any_state or state != "registered")
        for state, who in pool.states(prefix).values()
    )
