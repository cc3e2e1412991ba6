"""What an ops person sees in Prefect while and after a batch runs, read over the API: a
batch that leaves a launch for a person ends FAILED ("Needs attention", the counts by
state), the step that stopped the launch is a failed task run with the reason, the run
logs one summary line and one warning for that launch, and its artifacts are a progress
bar that reached 100% and a report that opens with the counts per state and per worker,
its table led by what a person reads first, file names relative to the batch folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.pipeline import aim_flows_at, launchops, profile_env, set_faults, write_launch

LAUNCHES = 4


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "launches"
    for index in range(LAUNCHES):
        name = f"ui-{index:02d}"
        write_launch(folder, f"{name}.yaml", key=name, symbol=f"U{index}")
    return folder


async def _run_reads(flow_run_id: Any) -> dict[str, Any]:
    """The flow run, its task runs, its logs and its artifacts, as the UI reads them, once
    the task runs' states (sent as events, in the background) are all on the server."""
    for _ in range(100):
        seen = await _read(flow_run_id)
        tasks = seen["tasks"]
        if len(tasks) >= LAUNCHES * 5 and all(t.state and t.state.is_final() for t in tasks):
            return seen
        await asyncio.sleep(0.2)
    return seen


async def _read(flow_run_id: Any) -> dict[str, Any]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        ArtifactFilterFlowRunId,
        FlowRunFilter,
        FlowRunFilterId,
        LogFilter,
        LogFilterFlowRunId,
    )
    from prefect.logging.handlers import APILogHandler

    await APILogHandler.aflush()
    runs = FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
    async with get_client() as client:
        return {
            "run": await client.read_flow_run(flow_run_id),
            "tasks": await client.read_task_runs(flow_run_filter=runs),
            "logs": await client.read_logs(
                LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id]))
            ),
            "artifacts": await client.read_artifacts(
                artifact_filter=ArtifactFilter(
                    flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])
                )
            ),
        }


async def test_a_batch_leaving_a_launch_for_a_person_fails_in_prefect_and_says_why(
    sandbox_factory, tmp_path, monkeypatch, prefect_server
):
    import logging

    from launchops.flows.batch import batch_flow
    from launchops.flows.outcome import NotAllFinished, result_of

    sandbox = sandbox_factory()
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home", LAUNCHOPS_REBROADCAST_SECONDS="0.3")
    folder = _folder(tmp_path)
    set_faults(sandbox, fail_tail_next=1)  # one launch: its first transaction lands, not the rest
    state = await batch_flow(paths=[str(folder)], concurrency=2, return_state=True)
    result = await result_of(state)  # the caller still gets the batch's result
    assert dict(result.counts) == {"needs_attention": 1, "registered": LAUNCHES - 1}
    assert not result.ok
    stuck = next(item for item in result.items if item.state == "needs_attention")

    seen = await _run_reads(state.state_details.flow_run_id)
    run = seen["run"]
    assert run.state.is_failed() and run.state.name == "Needs attention", run.state
    assert run.state.message == f"{LAUNCHES} launches: 1 needs_attention, 3 registered"

    failed = [t for t in seen["tasks"] if t.state.is_failed()]
    assert len(failed) == 1, [(t.name, t.state) for t in seen["tasks"]]
    assert failed[0].name.endswith(f" {stuck.key}") and failed[0].state.name == "Needs attention"
    assert f"{stuck.key} needs_attention: {stuck.error}" in failed[0].state.message
    assert failed[0].run_count == 1  # not retried: a retry would change nothing
    names = {t.name for t in seen["tasks"]}
    assert {f"validate ui-{i:02d}.yaml" for i in range(LAUNCHES)} <= names, names
    completed = [t for t in seen["tasks"] if t.state.is_completed()]
    assert len(completed) == len(seen["tasks"]) - 1

    lines = [(log.level, log.message) for log in seen["logs"]]
    assert (logging.INFO, run.state.message) in lines, lines
    warnings = [m for level, m in lines if level == logging.WARNING]
    assert warnings == [f"{stuck.key} needs_attention: {stuck.error} ({stuck.key}.yaml)"]

    artifacts = {a.key: a for a in seen["artifacts"] if a.key}
    progress = next(a for a in seen["artifacts"] if a.type == "progress")
    assert float(progress.data) == 100.0 and progress.description.startswith("4 of 4"), progress
    report = artifacts["batch-report"]
    counts_line, workers_line = report.description.splitlines()[1:3]
    assert "1 needs_attention, 3 registered" in counts_line, report.description
    assert "by worker:" in workers_line, report.description
    table = report.data if isinstance(report.data, list) else json.loads(report.data)
    assert list(table[0])[:6] == ["launch", "state", "worker", "mint", "launch page", "error"]
    assert sorted(row["file"] for row in table) == [f"ui-{i:02d}.yaml" for i in range(LAUNCHES)]
    assert all(len(row["mint"] or "") <= 9 for row in table), table

    # Called without return_state, the flow raises one clear line holding the result: a
    # re-run reports the same batch from the journal, and ends the same way.
    with pytest.raises(NotAllFinished, match="1 needs_attention, 3 registered") as raised:
        await batch_flow(paths=[str(folder)], concurrency=2)
    assert dict(raised.value.result.counts) == dict(result.counts)


async def test_the_command_line_still_exits_1_and_prints_the_report_not_the_run_logs(
    sandbox_factory, tmp_path, prefect_env
):
    """Through the flow, the command answers as before (exit 1, the batch's JSON); the run's
    FAILED state, its summary and warning lines stay on the Prefect API, off the terminal."""
    sandbox = sandbox_factory()
    env = {**profile_env(sandbox, tmp_path / "home"), **prefect_env}
    set_faults(sandbox, fail_tail_next=1)
    folder = _folder(tmp_path)
    done = launchops(env, "batch", str(folder), "--json")
    assert done.returncode == 1 and done.stdout, done.stderr[-3000:]
    assert json.loads(done.stdout)["counts"] == {"needs_attention": 1, "registered": 3}
    assert "needs_attention:" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    from prefect.client.orchestration import get_client

    async with get_client() as client:
        runs = await client.read_flow_runs()
    [run] = [r for r in runs if str(folder) in str(r.parameters.get("paths"))]  # the flow's
    assert run.state.name == "Needs attention", run.state


async def test_the_progress_bar_moves_as_launches_finish_not_per_step(monkeypatch):
    """Sent when a launch finished since the last look (one look every `every`), and at the
    end: never once per step."""
    import prefect.artifacts
    from launchops.tasks.progress import batch_progress

    from launchops.pipeline.batch import BatchRow

    sent: list[tuple[float, str]] = []

    async def create(progress: float, key: str, description: str) -> str:
        sent.append((progress, description))
        return "artifact-id"

    async def update(artifact_id: str, progress: float, description: str) -> None:
        sent.append((progress, description))

    monkeypatch.setattr(prefect.artifacts, "acreate_progress_artifact", create)
    monkeypatch.setattr(prefect.artifacts, "aupdate_progress_artifact", update)
    rows = [BatchRow(file=f"{i}.yaml", key=f"k{i}", state="running") for i in range(4)]
    async with batch_progress(rows, every=0.05):
        for row in rows:
            await asyncio.sleep(0.1)
            row.state = "registered"  # a launch finished: the next look sends it
        await asyncio.sleep(0.1)
    percents = [p for p, _ in sent]
    assert percents[0] == 0.0 and percents[-1] == 100.0 and percents == sorted(percents)
    assert 3 <= len(sent) <= 7, sent
    assert sent[-1][1] == "4 of 4 launches done: 4 registered"


async def test_the_end_is_not_held_by_a_cancel_landing_as_the_bars_call_returns(monkeypatch):
    """The block ends in the turn of the loop in which the bar's call returns, so the
    ticker's cancel lands between that return and the ticker's wake-up: the block still
    ends. On Python 3.11, `asyncio.wait_for` lost such a cancel (it returned the call's
    result), the ticker ran on, and a batch's flow run stayed Running with every launch
    done (seen twice on a dying worker's next batch, tests/workers/test_readme_spread.py)."""
    import prefect.artifacts
    from launchops.tasks.progress import batch_progress

    from launchops.pipeline.batch import BatchRow

    returned = asyncio.Event()

    async def create(progress: float, key: str, description: str) -> str:
        return "artifact-id"

    async def update(artifact_id: str, progress: float, description: str) -> None:
        returned.set()  # wakes the block before the ticker hears this call returned

    monkeypatch.setattr(prefect.artifacts, "acreate_progress_artifact", create)
    monkeypatch.setattr(prefect.artifacts, "aupdate_progress_artifact", update)
    rows = [BatchRow(file="0.yaml", key="k0", state="running")]
    # The test's own bound: its cancel reaches the ticker through the block's wait on it.
    async with asyncio.timeout(10) as bound, batch_progress(rows, every=0.01):
        await asyncio.sleep(0)  # the ticker's first look, at the launch running
        rows[0].state = "registered"  # the next look sends it
        await returned.wait()
    assert not bound.expired(), "the block's end waited on the bar's ticker"


# The bar runs here outside a flow run, to meet a server that answers nothing but 503 (a
# flow run could not start against it); the batch flow (flows/batch.py) is where it runs.
@pytest.mark.filterwarnings("ignore:Artifact creation outside of a flow or task run")
async def test_a_server_away_costs_the_batch_nothing_but_the_bar(monkeypatch):
    """The server answers 503 to everything (restarting) and the client retries twelve
    times (minutes of backoff): the bar's calls give up within their bound, the launches
    start, and the end of the block is not held either."""
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from launchops.tasks import progress
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_CLIENT_MAX_RETRIES,
        temporary_settings,
    )

    from launchops.pipeline.batch import BatchRow

    class Restarting(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_PATCH = do_POST

        def log_message(self, *args: Any) -> None:
            pass

    away = ThreadingHTTPServer(("127.0.0.1", 0), Restarting)
    threading.Thread(target=away.serve_forever, daemon=True).start()
    monkeypatch.setattr(progress, "PROGRESS_CALL_SECONDS", 0.5)
    rows = [BatchRow(file=f"{i}.yaml", key=f"k{i}", state="running") for i in range(2)]
    url = f"http://127.0.0.1:{away.server_address[1]}/api"
    try:
        settings = {PREFECT_API_URL: url, PREFECT_CLIENT_MAX_RETRIES: 12}
        with temporary_settings(settings):
            began = time.monotonic()
            # A bound of its own: without the bar's, the block waits out the retries.
            async with asyncio.timeout(30), progress.batch_progress(rows, every=0.05):
                entered = time.monotonic() - began
                for row in rows:
                    row.state = "registered"
            ended = time.monotonic() - began
    finally:
        away.shutdown()
    assert entered < 3, f"the launches waited {entered:.1f} s for the bar"
    assert ended < 6, f"the batch's end waited {ended:.1f} s for the bar"


def test_the_ui_shows_the_run_needs_attention_and_the_report_a_person_reads(
    sandbox_factory, tmp_path
):
    """Screenshots of a `prefect server start` UI at 1440 px (headless Chromium, when
    installed), once each page stopped fading in: the flow run, red and named "Needs
    attention"; the report, its counts first and its table's first columns in view. They
    are kept in LAUNCHOPS_SCREENSHOTS when set, to be looked at."""
    import os
    import shutil

    from tests.support import prefect_db
    from tests.support.prefect_pool import PrefectServer, ui_page

    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    shots = Path(os.environ.get("LAUNCHOPS_SCREENSHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    database = f"sqlite+aiosqlite:///{prefect_db.copy_to(tmp_path / 'prefect.db')}"
    server = PrefectServer(tmp_path / "prefect", "-", PREFECT_API_DATABASE_CONNECTION_URL=database)
    try:
        sandbox = sandbox_factory()
        env = {
            **profile_env(sandbox, tmp_path / "home"),
            "PREFECT_API_URL": server.url,
            "PREFECT_HOME": str(tmp_path / "client"),
        }
        set_faults(sandbox, fail_tail_next=1)
        done = launchops(env, "batch", str(_folder(tmp_path)), "--json")
        assert done.returncode == 1, done.stderr[-3000:]
        [run] = server.api("POST", "/flow_runs/filter", json={})
        body = {"artifacts": {"key": {"any_": ["batch-report"]}}}
        [report] = server.api("POST", "/artifacts/filter", json=body)
        ui = server.url.removesuffix("/api")
        pages = {
            "flow-run": (f"{ui}/runs/flow-run/{run['id']}", "Needs attention"),
            "batch-report": (f"{ui}/artifacts/artifact/{report['id']}", "ui-03.yaml"),
        }
        for name, (url, shown) in pages.items():
            text = ui_page(url, shown, shots / f"{name}.png") or ""
            assert shown in text, (name, text[-2000:])
    finally:
        server.stop()
