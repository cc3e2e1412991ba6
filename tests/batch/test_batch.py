"""Batches: good, bad and service-failing files together; a batch killed and re-run; the
registration retry; two workers on one PostgreSQL journal; the Prefect batch flow."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import launchops.web as web
from launchops.pipeline.batch import retry_registrations, run_batch
from tests.support import forks
from tests.support.pipeline import (
    aim_flows_at,
    context_for,
    launchops,
    profile_env,
    set_faults,
    started,
    stats,
    write_launch,
)


def folder_of(tmp_path: Path, count: int, prefix: str = "b") -> Path:
    folder = tmp_path / "launches"
    for index in range(count):
        write_launch(
            folder, f"{prefix}-{index:02d}.yaml", key=f"{prefix}-{index:02d}", symbol=f"B{index}"
        )
    return folder


async def test_a_mixed_batch_lands_the_good_and_reports_the_rest(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    folder = folder_of(tmp_path, 3)
    write_launch(
        folder, "a-refused.yaml", key="a-refused"
    )  # first in order: the service refuses it
    (folder / "zz-broken.yaml").write_text("name: [unclosed\n")
    set_faults(sandbox, fail_status=400, fail_next={"POST /v1/launches/create": 1})
    async with context_for(sandbox, tmp_path) as ctx:
        rows = await run_batch(ctx, sorted(folder.glob("*.yaml")), concurrency=1)
    by_file = {Path(r.file).name: r for r in rows}
    assert by_file["a-refused.yaml"].state == "failed" and "400" in by_file["a-refused.yaml"].error
    assert (
        by_file["zz-broken.yaml"].state == "invalid"
        and "is not valid YAML" in by_file["zz-broken.yaml"].error
    )
    good = [by_file[f"b-{i:02d}.yaml"] for i in range(3)]
    assert all(r.state == "registered" and r.launch_page and r.mint for r in good)
    assert stats(sandbox)["launches"]["registered"] == 3


def test_the_cli_batch_reports_and_a_killed_batch_resumes(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=100)
    env = profile_env(sandbox, tmp_path / "home", LAUNCHOPS_CONCURRENCY="3")
    folder = folder_of(tmp_path, 8)
    process = forks.popen(
        [sys.executable, "-m", "launchops.cli", "batch", str(folder), "--no-prefect"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while stats(sandbox)["launches"]["registered"] < 2:  # kill it mid-batch
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    rerun = launchops(env, "batch", str(folder), "--no-prefect", "--json")
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    result = json.loads(rerun.stdout)
    assert result["counts"] == {"registered": 8}
    counts = stats(sandbox)["launches"]
    assert counts["registered"] == 8 and counts["mintsOnChain"] == 8
    report = json.loads(Path(result["reports"]["json"]).read_text())
    assert len(report["launches"]) == 8
    assert all(row["launchPage"] for row in report["launches"] + result["launches"])
    assert (
        Path(result["reports"]["csv"]).read_text().splitlines()[0]
        == "file,key,state,launchPage,mint,error,ok,worker,agent,amount,signature,scheduledFor,"
        "lamportsSpent,tipLamports,sniped,fromJournal"
    )


def in_hours(hours: float) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_batch_leaves_a_scheduled_file_to_its_deployment_and_launch_asks_for_now(
    sandbox_factory, tmp_path
):
    """The plain driver: the file scheduled 3 hours ahead is reported `scheduled` with its
    time, nothing of it created or journaled; `launchops launch` of it is refused (exit 2,
    one line, before Prefect starts) and `--now` launches it."""
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    when = in_hours(3)
    folder = tmp_path / "launches"
    later = write_launch(folder, "later.yaml", key="later", symbol="LATE", schedule=when)
    write_launch(folder, "plain.yaml", key="plain", symbol="PLN")
    done = launchops(env, "batch", str(folder), "--no-prefect", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["ok"] and result["counts"] == {"registered": 1, "scheduled": 1}, result
    row = next(r for r in result["launches"] if r["key"] == "later")
    assert (row["state"], row["scheduledFor"], row["ok"], row["mint"]) == (
        "scheduled",
        when,
        True,
        None,
    )
    with Path(result["reports"]["csv"]).open() as report:
        by_key = {r["key"]: r for r in csv.DictReader(report)}
    assert (by_key["later"]["state"], by_key["later"]["scheduledFor"]) == ("scheduled", when)
    assert stats(sandbox)["launches"]["created"] == 1  # the other file's only
    journal = json.loads(launchops(env, "status", "--json").stdout)
    assert [r["key"] for r in journal] == ["plain"]  # nothing of it journaled
    table = launchops({**env, "COLUMNS": "100"}, "batch", str(folder), "--no-prefect")
    assert f"left to its deployment: launches at {when}" in table.stdout, table.stdout

    refused = launchops(env, "launch", str(later), timeout=60)  # through Prefect: refused first
    assert refused.returncode == 2, refused.stderr[-2000:]
    [line] = refused.stderr.strip().splitlines()
    assert line.startswith(f"error: {later} is scheduled for {when}, "), line
    assert line.endswith(
        f"from now: its deployment (launchops deploy --launches {later}) launches it then; "
        "--now launches it now"
    ), line
    launched = launchops(env, "launch", str(later), "--now", "--no-prefect", "--json")
    assert launched.returncode == 0, launched.stderr[-2000:]
    assert json.loads(launched.stdout)["state"] == "registered"
    assert stats(sandbox)["launches"]["created"] == 2


async def test_registration_retry_picks_up_exactly_the_unregistered(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    folder = folder_of(tmp_path, 4)
    set_faults(sandbox, fail_status=400, fail_next={"POST /v1/launches/register": 2})
    async with context_for(sandbox, tmp_path) as ctx:
        rows = await run_batch(ctx, sorted(folder.glob("*.yaml")), concurrency=1)
        failed = sorted(r.key for r in rows if r.state == "register_failed")
        assert len(failed) == 2
        assert (
            await retry_registrations(ctx, older_than=__import__("datetime").timedelta(hours=1))
            == []
        )
        retried = await retry_registrations(ctx)
    assert sorted(r.key for r in retried) == failed
    assert all(r.state == "registered" for r in retried)
    assert stats(sandbox)["launches"]["registered"] == 4
    env = profile_env(sandbox, tmp_path)
    again = launchops(env, "registrations", "retry", "--no-prefect", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["launches"] == []


async def test_one_launch_losing_its_lease_or_crashing_never_stops_the_batch(
    sandbox_factory, tmp_path
):
    """Another worker takes one launch over mid-run, another launch's step raises an
    unexpected error: every other launch still lands, and both get their row."""
    from launchops.pipeline.runner import run_step

    sandbox = sandbox_factory()
    folder = folder_of(tmp_path, 4)
    async with context_for(sandbox, tmp_path) as ctx:

        async def call(step, ctx, key):
            if key == "b-01" and step == "sign":  # a worker elsewhere took it over
                await ctx.journal.take_over(key, ctx.owner, "elsewhere:1:x", 600)
            if key == "b-02" and step == "submit":
                raise RuntimeError("a bug in a step")
            await run_step(step, ctx, key)

        rows = await run_batch(ctx, sorted(folder.glob("*.yaml")), concurrency=4, call=call)
        by_key = {r.key: r for r in rows}
        assert len(rows) == 4
        assert by_key["b-00"].state == by_key["b-03"].state == "registered"
        assert "lease" in by_key["b-01"].error and by_key["b-01"].state != "registered"
        assert "a bug in a step" in by_key["b-02"].error
        assert by_key["b-02"].state == "signed"  # where the journal left it: resumable


async def test_the_registration_retry_survives_a_launch_it_cannot_finish(sandbox_factory, tmp_path):
    from launchops.pipeline.runner import run_step

    sandbox = sandbox_factory()
    folder = folder_of(tmp_path, 3)
    set_faults(sandbox, fail_status=400, fail_next={"POST /v1/launches/register": 3})
    async with context_for(sandbox, tmp_path) as ctx:
        rows = await run_batch(ctx, sorted(folder.glob("*.yaml")), concurrency=1)
        assert {r.state for r in rows} == {"register_failed"}

        async def call(step, ctx, key):
            if key == "b-00":
                raise RuntimeError("a bug in a step")
            await run_step(step, ctx, key)

        retried = await retry_registrations(ctx, call=call)
    by_key = {r.key: r for r in retried}
    assert len(retried) == 3
    assert "a bug in a step" in by_key["b-00"].error
    assert by_key["b-01"].state == by_key["b-02"].state == "registered"


def test_two_workers_on_postgres_never_work_the_same_launch(
    sandbox_factory, tmp_path, postgres_url
):
    sandbox = sandbox_factory(slot_ms=50)
    folder = folder_of(tmp_path, 10, prefix="pg")
    env = profile_env(
        sandbox, tmp_path / "home", LAUNCHOPS_JOURNAL_URL=postgres_url, LAUNCHOPS_CONCURRENCY="4"
    )
    workers = [started(env, "batch", str(folder), "--no-prefect", "--json") for _ in range(2)]
    outputs = [w.communicate(timeout=240) for w in workers]
    for out, err in outputs:
        assert out.strip().startswith("{"), err[-3000:]
    reports = [json.loads(out) for out, _ in outputs]
    counts = stats(sandbox)["launches"]
    assert counts["created"] == 10, counts  # no launch was created twice
    states = {}
    for report in reports:
        for row in report["launches"]:
            states.setdefault(row["key"], set()).add(row["state"])
    assert set(states) == {f"pg-{i:02d}" for i in range(10)}
    assert all(s <= {"registered", "elsewhere"} for s in states.values()), states
    leftover = launchops(env, "batch", str(folder), "--no-prefect", "--json")  # finishes any left
    assert json.loads(leftover.stdout)["counts"] == {"registered": 10}
    assert stats(sandbox)["launches"] == {**counts, "registered": 10, "mintsOnChain": 10}
    import asyncio

    from launchops.journal.store import Journal

    async def creates() -> dict[str, int]:
        journal = await Journal.open(postgres_url)
        try:
            return {
                f"pg-{i:02d}": sum(
                    1 for _, step, _ in await journal.events(f"pg-{i:02d}") if step == "create"
                )
                for i in range(10)
            }
        finally:
            await journal.close()

    assert set(asyncio.run(creates()).values()) == {1}


async def test_the_prefect_batch_flow_publishes_a_table_artifact(
    sandbox_factory, tmp_path, monkeypatch, prefect_server
):
    from launchops.flows.batch import batch_flow
    from prefect.client.orchestration import get_client

    sandbox = sandbox_factory()
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home", LAUNCHOPS_REBROADCAST_SECONDS="0.3")
    folder = folder_of(tmp_path, 3, prefix="pf")
    when = in_hours(3)  # left to its own deployment: nothing of it created
    write_launch(folder, "pf-later.yaml", key="pf-later", symbol="LATE", schedule=when)
    result = (await batch_flow(paths=[str(folder)], concurrency=2)).to_json()
    assert result["counts"] == {"registered": 3, "scheduled": 1}, result["counts"]
    assert result["ok"]
    [later] = [row for row in result["launches"] if row["key"] == "pf-later"]
    assert (later["state"], later["scheduledFor"], later["worker"]) == ("scheduled", when, None)
    async with get_client() as client:
        artifacts = await client.read_artifacts()
    report = Path(result["reports"]["json"]).stem  # other tests publish batch reports too
    table = next(a for a in artifacts if a.key == "batch-report" and report in a.description)
    assert "3 registered, 1 scheduled" in table.description, table.description
    data = table.data if isinstance(table.data, list) else json.loads(table.data)
    assert sorted(row["launch"] for row in data) == ["pf-00", "pf-01", "pf-02", "pf-later"]
    assert {row["launch"]: row["scheduled for"] for row in data}["pf-later"] == when
    launches = web.get(f"{sandbox.url}/_sandbox/stats").json()["launches"]
    assert launches["registered"] == 3 and launches["created"] == 3


@pytest.mark.parametrize("text", ["5", "30s", "10m", "2h", "1.5d"])
def test_durations(text):
    from launchops.cli.batches import parse_duration

    assert parse_duration(text).total_seconds() > 0


def test_a_report_of_the_same_second_is_never_written_over(tmp_path):
    """Two runs whose reports are named for the same second (a re-run at once, two workers
    writing to one folder): the second gets `-2`, and the first is as it was."""
    from launchops.pipeline.rows import BatchRow, write_reports

    first = write_reports([BatchRow(file="a.yaml", key="a")], tmp_path, "batch-x")
    second = write_reports([BatchRow(file="b.yaml", key="b")], tmp_path, "batch-x")
    assert [p.name for p in first] == ["batch-x.json", "batch-x.csv"]
    assert [p.name for p in second] == ["batch-x-2.json", "batch-x-2.csv"]
    assert json.loads(first[0].read_text())["launches"][0]["key"] == "a"
    assert json.loads(second[0].read_text())["launches"][0]["key"] == "b"


def test_a_batch_whose_output_is_a_log_shows_each_launch_moving(sandbox_factory, tmp_path):
    """Off a terminal (a log file, CI, a supervisor) a batch says each launch's state
    change on a line of its own as it happens, not one render at the end."""
    sandbox = sandbox_factory(slot_ms=100)
    env = profile_env(sandbox, tmp_path / "home", LAUNCHOPS_CONCURRENCY="1")
    folder = folder_of(tmp_path, 3)
    process = forks.popen(
        [sys.executable, "-m", "launchops.cli", "batch", str(folder), "--no-prefect"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert process.stderr is not None
    lines, running_when_read = [], []
    for line in process.stderr:
        lines.append(line.rstrip("\n"))
        running_when_read.append(process.poll() is None)
    assert process.wait(timeout=120) == 0, "\n".join(lines)
    moves = [line.split(" ", 1)[1] for line in lines if line[:2].isdigit() and ": " in line]
    for file in sorted(folder.iterdir()):
        said = [m.rsplit(": ", 1)[1] for m in moves if m.startswith(f"{file} (")]
        assert said[0] in ("pending", "running") and said[-1] == "registered", moves
    assert running_when_read[0], "the first line came only once the batch had ended"


def test_a_past_one_off_in_a_batch_is_launched_now(sandbox_factory, tmp_path):
    """A one-off `schedule:` already past is due: no deployment made now would ever fire
    it, so the batch launches it rather than reporting it `scheduled` for a time that
    will not come again."""
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    past = in_hours(-0.5)
    folder = tmp_path / "launches"
    write_launch(folder, "past.yaml", key="past-one-off", symbol="PAST", schedule=past)
    done = launchops(env, "batch", str(folder), "--no-prefect", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["counts"] == {"registered": 1}, result
    assert stats(sandbox)["launches"]["registered"] == 1
