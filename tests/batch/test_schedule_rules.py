"""A launch file's `schedule:` as launchops reads it, with no network and no sandbox: a
time needs its zone (quoted or not), and a launch whose schedule is still ahead is refused
(one line: the file, the schedule, how far ahead, who launches it, and `--now`) by the
library before it opens anything, and by `launchops launch` before its profile loads."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from solders.keypair import Keypair
from typer.testing import CliRunner

from launchops.api.errors import LaunchFileError
from launchops.config.launchfile import load_launch_file
from launchops.config.schedule import (
    DEPLOY_LEAD_SECONDS,
    Schedule,
    refuse_early,
    too_soon_to_deploy,
)
from launchops.errors import ScheduledLater
from tests.support.pipeline import dump_yaml, embedded_env, launch_document, launchops

HOW = "2027-06-01T15:00:00Z (UTC) or 2027-06-01T15:00:00+02:00"


@pytest.mark.parametrize(
    "written",
    [
        "schedule: 2027-06-01T15:00:00",  # unquoted: PyYAML reads a datetime with no zone
        "schedule: 2027-06-01 15:00:00",
        "schedule: 2027-06-01",  # a date
        'schedule: "2027-06-01 15:00"',  # quoted text
        'schedule: "2027-06-01T15:00:00"',
    ],
)
def test_a_schedule_time_without_a_zone_is_refused_saying_how_to_write_one(tmp_path, written):
    path = tmp_path / "naive.yaml"
    path.write_text(dump_yaml(launch_document(key="naive")) + written + "\n")
    line = len(path.read_text().splitlines())
    with pytest.raises(LaunchFileError) as caught:
        load_launch_file(path, wallet=Keypair().pubkey())
    [problem] = caught.value.file_problems
    assert str(problem).startswith(f"{path}:{line}: schedule: the time "), str(problem)
    assert "has no time zone" in problem.message and HOW in problem.message


@pytest.mark.parametrize(
    ("written", "at"),
    [
        ("2027-06-01T15:00:00Z", "2027-06-01T15:00:00Z"),
        ("2027-06-01T15:00:00+02:00", "2027-06-01T13:00:00Z"),
        ("0 * * * *", None),
    ],
)
def test_a_time_with_its_zone_or_a_cron_expression_is_taken(tmp_path, written, at):
    path = tmp_path / "zoned.yaml"
    path.write_text(dump_yaml(launch_document(key="zoned")) + f"schedule: {written}\n")
    plan = load_launch_file(path, wallet=Keypair().pubkey())
    assert plan.schedule == written
    assert Schedule.parse(written).shown == (at or written)


def _scheduled(tmp_path, when: str):
    path = tmp_path / "later.yaml"
    path.write_text(dump_yaml(launch_document(key="later", schedule=when)))
    return path


def test_a_launch_scheduled_ahead_is_refused_in_one_line(tmp_path):
    now = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    path = _scheduled(tmp_path, "2026-06-01T15:00:00Z")
    with pytest.raises(ScheduledLater) as caught:
        refuse_early(path, now)
    assert str(caught.value) == (
        f"{path} is scheduled for 2026-06-01T15:00:00Z, 3 h 0 min from now: its deployment "
        f"(launchops deploy --launches {path}) launches it then; --now launches it now"
    )
    refuse_early(path, now + timedelta(hours=3))  # its time has come: launched
    cron = _scheduled(tmp_path, "30 9 * * *")
    with pytest.raises(ScheduledLater) as caught:  # any cron expression: its next run
        refuse_early(cron, now)
    assert str(caught.value).startswith(
        f"{cron} is scheduled on cron '30 9 * * *' (UTC), next 2026-06-02T09:30:00Z, "
        "21 h 30 min from now: its deployment"
    ), str(caught.value)


def test_the_library_and_the_command_refuse_before_anything_starts(tmp_path, monkeypatch):
    """No profile, sandbox or journal is touched: the refusal comes first."""
    from launchops import library
    from launchops.cli import app

    monkeypatch.setenv("LAUNCHOPS_HOME", str(tmp_path / "home"))
    when = (datetime.now(UTC) + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    path = _scheduled(tmp_path, when)
    with pytest.raises(ScheduledLater, match="--now launches it now"):
        library.launch_sync(path, profile="no-such-profile")
    done = CliRunner().invoke(app, ["launch", str(path), "--profile", "no-such-profile"])
    assert done.exit_code == 2, done.output
    [line] = done.output.strip().splitlines()
    assert re.fullmatch(
        rf"error: {re.escape(str(path))} is scheduled for {when}, "
        r"(2 h 59 min|3 h 0 min) from now: its deployment \(launchops deploy --launches "
        rf"{re.escape(str(path))}\) launches it then; --now launches it now",
        line,
    ), line
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize(
    ("ahead", "said"),
    [(-3600, "1 h 0 min ago"), (-5, "5 s ago"), (10, "only 10 s from now")],
)
def test_a_one_off_time_past_or_too_close_is_not_deployed(tmp_path, ahead, said):
    """A deployment made after its time never fires: deploy says so instead."""
    now = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    when = f"{now + timedelta(seconds=ahead):%Y-%m-%dT%H:%M:%SZ}"
    path = _scheduled(tmp_path, when)
    assert too_soon_to_deploy(path, Schedule.parse(when), now) == (
        f"{path}: schedule: {when} is {said}; a one-off time must be at least "
        f"{DEPLOY_LEAD_SECONDS} s ahead when deployed (a deployment made after its time never "
        f"fires): set a later time, or launch it now with launchops launch {path} --now"
    )


@pytest.mark.parametrize("when", ["2026-06-01T12:00:30Z", "0 * * * *"])
def test_a_one_off_time_far_enough_or_a_cron_is_deployed(tmp_path, when):
    now = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    assert too_soon_to_deploy(tmp_path / "f.yaml", Schedule.parse(when), now) is None


def test_deploy_refuses_a_past_one_off_before_prefect_starts(tmp_path):
    """The command, as a user runs it: exit 2, one line naming the file and the fix, and no
    Prefect server started for it (nothing configured: it would have started one)."""
    when = f"{datetime.now(UTC) - timedelta(minutes=5):%Y-%m-%dT%H:%M:%SZ}"
    path = _scheduled(tmp_path, when)
    env = {**embedded_env(tmp_path / "home"), "PREFECT_HOME": str(tmp_path / "prefect")}
    env.pop("PREFECT_API_URL", None)
    done = launchops(env, "deploy", "--serve", "--launches", str(path), timeout=120, fresh=True)
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}: schedule: {when} is 5 min ") and line.endswith(
        f"launch it now with launchops launch {path} --now"
    ), line
    assert not (tmp_path / "prefect").exists()


def test_deploy_skips_a_one_off_that_launched_and_names_only_the_one_that_never_ran(tmp_path):
    """A one-off whose time came and whose launch registered is skipped by every later
    deploy of its folder, said once; a past one-off that never ran is still refused (one
    line naming it alone), before any Prefect server starts."""
    when = f"{datetime.now(UTC) - timedelta(minutes=5):%Y-%m-%dT%H:%M:%SZ}"
    folder = tmp_path / "launches"
    folder.mkdir()
    launched = folder / "a-launched.yaml"
    launched.write_text(dump_yaml(launch_document(key="launched", schedule=when)))
    env = {**embedded_env(tmp_path / "home"), "PREFECT_HOME": str(tmp_path / "prefect")}
    env.pop("PREFECT_API_URL", None)
    done = launchops(env, "launch", str(launched), "--no-prefect", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    never = folder / "b-never.yaml"
    never.write_text(dump_yaml(launch_document(key="never", schedule=when)))
    done = launchops(env, "deploy", "--serve", "--launches", str(folder), timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"skipped  {launched}: launched already (launched, registered); its one-off "
        "schedule is done"
    ]
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {never}: schedule: {when} is 5 min "), line
    assert not (tmp_path / "prefect").exists()
