"""Schedules: `launchops deploy --pool` registers the batch, the registration retry and
scheduled launch files on the Prefect server, each with its schedule."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
import yaml
from typer.testing import CliRunner

from launchops.cli import app
from tests.support.pipeline import dump_yaml, launch_document


def test_deploy_registers_scheduled_deployments(tmp_path, monkeypatch, prefect_server):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate

    monkeypatch.setenv("LAUNCHOPS_HOME", str(tmp_path / "home"))
    launches = tmp_path / "launches"
    launches.mkdir()
    for name, when in (("once", "2027-01-02T03:04:05Z"), ("hourly", "30 * * * *"), ("never", None)):
        document = launch_document(key=f"sched-{name}")
        if when:
            document["schedule"] = when
        (launches / f"{name}.yaml").write_text(yaml.safe_dump(document))

    async def make_pool() -> None:
        async with get_client() as client:
            await client.create_work_pool(WorkPoolCreate(name="launchops-test", type="process"))

    asyncio.run(make_pool())
    result = CliRunner().invoke(
        app,
        [
            "deploy",
            "--pool",
            "launchops-test",
            "--batch",
            str(launches),
            "--batch-cron",
            "0 6 * * *",
            "--launches",
            str(launches),
        ],
    )
    assert result.exit_code == 0, result.output

    async def read() -> tuple[dict[str, list], dict[str, dict]]:
        async with get_client() as client:
            found = await client.read_deployments()
            return (
                {d.name: [s.schedule for s in d.schedules] for d in found},
                {d.name: d.parameters for d in found},
            )

    deployments, parameters = asyncio.run(read())
    assert deployments["batch-sandbox"][0].cron == "0 6 * * *"
    assert deployments["registration-retry-sandbox"][0].cron == "*/15 * * * *"
    assert deployments["launch-sched-hourly"][0].cron == "30 * * * *"
    assert "COUNT=1" in deployments["launch-sched-once"][0].rrule
    assert "launch-sched-never" not in deployments
    # A scheduled file's run is its time come: it passes `now` (launch refuses it otherwise).
    for name in ("launch-sched-hourly", "launch-sched-once"):
        assert parameters[name]["now"] is True, parameters[name]
        assert parameters[name]["path"].endswith(name.removeprefix("launch-sched-") + ".yaml")


@pytest.mark.parametrize("bad", ["every hour", "61 * * *"])
def test_a_bad_schedule_names_the_file_and_line(tmp_path, bad):
    from solders.keypair import Keypair

    from launchops.api.errors import LaunchFileError
    from launchops.config.launchfile import load_launch_file

    document = launch_document(key="bad-schedule")
    document["schedule"] = bad
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    with pytest.raises(LaunchFileError) as caught:
        load_launch_file(path, wallet=Keypair().pubkey())
    [problem] = caught.value.file_problems
    assert problem.field == "schedule" and problem.line and "cron expression" in problem.message


def test_an_unquoted_schedule_time_is_taken(tmp_path):
    """YAML reads an unquoted ISO time as a timestamp: taken as the text it was."""
    from solders.keypair import Keypair

    from launchops.config.launchfile import load_launch_file

    document = launch_document(key="unquoted-schedule")
    path = tmp_path / "once.yaml"
    path.write_text(dump_yaml(document) + "schedule: 2027-06-01T15:00:00Z\n")
    assert load_launch_file(path, wallet=Keypair().pubkey()).schedule == "2027-06-01T15:00:00Z"


def test_a_second_deploy_says_what_exists(tmp_path, monkeypatch, prefect_server):
    """What a second `deploy --pool` finds is `kept` (printed "exists"), never "made"; the
    webhook's token (a segment of its path, as a chat's incoming webhook has) never shows."""
    from launchops.flows.pool import prepare

    from launchops.config.profiles import load_profile

    monkeypatch.setenv("LAUNCHOPS_HOME", str(tmp_path / "home"))
    settings = load_profile("sandbox")
    token = "xq7Vb2Kp9Lm4Nw8Rt5Yz1Hc3"
    hook = f"https://hooks.example.com/services/T0001/B0002/{token}"
    first = asyncio.run(prepare("launchops-again", settings, notify_webhook=hook))
    again = asyncio.run(prepare("launchops-again", settings, notify_webhook=hook))
    said = first.made + first.kept + again.kept
    assert not any(token in line for line in said), said
    assert any(
        line.endswith("webhook https://hooks.example.com/services/T0001/B0002/***") for line in said
    )
    assert sum("automation" in line for line in first.made + first.kept) == 2, first
    assert any("work pool" in line for line in first.made), first
    assert again.made == [], again
    assert sum("automation" in line for line in again.kept) == 2, again


def test_a_one_off_time_that_comes_while_deploying_still_gets_its_run(
    tmp_path, monkeypatch, prefect_server
):
    """A deploy slower than the lead (here: the lead set to nothing, and a time 4 s ahead):
    no scheduler makes a run for a time already past, so deploy makes it, once, at its
    time. (The test server runs no scheduler: without deploy, no run at all.)"""
    from datetime import UTC, datetime, timedelta

    from launchops.flows.pool import catch_up
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName
    from prefect.exceptions import ObjectAlreadyExists

    monkeypatch.setenv("LAUNCHOPS_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("launchops.config.schedule.DEPLOY_LEAD_SECONDS", 0)
    at = (datetime.now(UTC) + timedelta(seconds=4)).replace(microsecond=0)
    document = launch_document(key="sched-soon")
    document["schedule"] = f"{at:%Y-%m-%dT%H:%M:%SZ}"
    (tmp_path / "soon.yaml").write_text(dump_yaml(document))

    async def runs() -> list:
        async with get_client() as client:
            named = DeploymentFilter(name=DeploymentFilterName(any_=["launch-sched-soon"]))
            return await client.read_flow_runs(deployment_filter=named)

    async def make_pool() -> None:
        async with get_client() as client:
            with contextlib.suppress(ObjectAlreadyExists):
                await client.create_work_pool(WorkPoolCreate(name="catch-up", type="process"))

    asyncio.run(make_pool())
    assert asyncio.run(runs()) == []
    args = ["deploy", "--pool", "catch-up", "--launches", str(tmp_path / "soon.yaml"), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["caughtUp"] == ["launch/launch-sched-soon"]
    [run] = asyncio.run(runs())
    assert run.state.type.value == "SCHEDULED" and run.expected_start_time == at, run.state
    # Asked again: the run is there, none is added.
    assert asyncio.run(catch_up({"launch/launch-sched-soon": at})) == []
    assert len(asyncio.run(runs())) == 1


def test_a_one_off_time_that_passes_before_serving_begins_still_gets_its_run(
    tmp_path, monkeypatch, prefect_server
):
    """deploy --serve makes its deployments only once serving starts (after its own server
    started, minutes on a loaded machine): a one-off time passed by then gets its run,
    once, at its time, made when the deployment appears. (The test server runs no
    scheduler: without this, no run at all.)"""
    import time
    from datetime import UTC, datetime, timedelta

    from launchops.flows.deployments import build
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName

    from launchops.cli.scheduler import one_offs_kept

    monkeypatch.setenv("LAUNCHOPS_HOME", str(tmp_path / "home"))
    at = (datetime.now(UTC) + timedelta(seconds=2)).replace(microsecond=0)
    schedule = f"{at:%Y-%m-%dT%H:%M:%SZ}"
    [deployment] = build(
        profile="sandbox",
        batch_paths=[],
        batch_cron=None,
        retry_cron=None,
        scheduled=[("served-late", tmp_path / "late.yaml", schedule)],
        from_source=False,
    )
    said: list[str] = []
    keeper = one_offs_kept({"launch/launch-served-late": at}, said.append)
    assert keeper is not None and one_offs_kept({}, said.append) is None

    async def runs() -> list:
        async with get_client() as client:
            named = DeploymentFilter(name=DeploymentFilterName(any_=["launch-served-late"]))
            return await client.read_flow_runs(deployment_filter=named)

    while datetime.now(UTC) < at + timedelta(seconds=2):  # the time passes, nothing served
        time.sleep(0.2)
    assert keeper.is_alive() and said == []
    deployment.apply()  # as serving makes it, late
    keeper.join(timeout=30)
    assert not keeper.is_alive()
    assert said == [
        "run made launch/launch-served-late: its time came before serving began (due now)"
    ]
    [run] = asyncio.run(runs())
    assert run.state.type.value == "SCHEDULED" and run.expected_start_time == at, run.state
