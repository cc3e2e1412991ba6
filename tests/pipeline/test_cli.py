"""`launchops validate | launch | resume | status` as a user runs them, in subprocesses."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.support.pipeline import launch_document, profile_env, stats, write_launch
from tests.support.pipeline import launchops as run


@pytest.fixture
def env(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    return sandbox, profile_env(sandbox, tmp_path / "home")


def test_validate_reports_file_line_field_and_exits_1(env, tmp_path):
    _, environment = env
    good = write_launch(tmp_path / "launches", "good.yaml")
    bad = launch_document()
    bad["symbol"] = "MUCHTOOLONGSYMBOL"
    (tmp_path / "launches" / "bad.yaml").write_text(yaml.safe_dump(bad, sort_keys=False))
    (tmp_path / "launches" / "junk.yaml").write_bytes(b"\x00\xff" * 50)
    result = run(environment, "validate", str(tmp_path / "launches"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"ok  {good}" in result.stdout
    assert (
        f"{tmp_path / 'launches' / 'bad.yaml'}:2: symbol: must be 1 to 10 characters (got 17)"
        in result.stderr
    )
    assert f"{tmp_path / 'launches' / 'junk.yaml'}: (file): is not UTF-8 text" in result.stderr
    assert "1 valid, 2 invalid" in result.stderr
    as_json = json.loads(run(environment, "validate", str(good), "--json").stdout)
    assert as_json[0]["ok"] is True and as_json[0]["key"].startswith("h-")
    other = write_launch(tmp_path, "other.yaml", key="other")  # as a shell's glob gives them
    several = run(environment, "validate", str(good), str(other), str(good), "--json")
    assert [r["file"] for r in json.loads(several.stdout)] == [str(good), str(other)]


def test_launch_writes_its_result_and_a_rerun_reports_it(env, tmp_path):
    sandbox, environment = env
    path = write_launch(tmp_path, key="cli-launch")
    first = run(environment, "launch", str(path), "--no-prefect", "--json")
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["state"] == "registered" and result["launchPage"].startswith(sandbox.url)
    written = tmp_path / "home" / "sandbox" / "results" / "cli-launch.json"
    assert json.loads(written.read_text()) == result
    again = run(environment, "launch", str(path), "--no-prefect")
    assert again.returncode == 0, again.stderr
    assert "cli-launch: already registered, from the journal" in again.stdout
    assert stats(sandbox)["api"]["POST /v1/launches/create"] == 1
    listed = json.loads(run(environment, "status", "--json").stdout)
    assert [(r["key"], r["state"]) for r in listed] == [("cli-launch", "registered")]
    detail = json.loads(run(environment, "status", "cli-launch", "--json").stdout)
    steps = [e["step"] for e in detail["events"]]
    assert steps == ["validate", "lease", "create", "sign", "submit", "confirm", "register"]
    resumed = run(environment, "resume", "cli-launch", "--no-prefect", "--json")
    assert json.loads(resumed.stdout)["state"] == "registered"


def test_a_launch_that_fails_exits_1_with_the_reason(env, tmp_path):
    sandbox, environment = env
    import launchops.web as web

    web.put(
        f"{sandbox.url}/_sandbox/faults",
        json={"fail_status": 400, "fail_next": {"POST /v1/launches/register": 1}},
    )
    result = run(environment, "launch", str(write_launch(tmp_path, key="cli-400")), "--no-prefect")
    assert result.returncode == 1
    assert "register_failed" in result.stdout and "400 Injected failure" in result.stdout
    said = " ".join(result.stdout.replace("│", " ").split())  # the panel's text, unwrapped
    assert "register what landed: launchops registrations retry" in said  # what to run next
    assert "explorer none: the sandbox has no explorer" in said  # why no links


def test_a_register_that_gives_up_says_the_token_is_live(env, tmp_path):
    """The service answering register 500 to the last attempt, the transactions landed:
    the panel, the one error line and the JSON say the token is live, its mint, its state,
    and the command that registers it; that command does."""
    sandbox, environment = env
    environment = {**environment, "LAUNCHOPS_SERVICE_CALL_SECONDS": "3"}  # quick retries
    fault = run(
        environment, "sandbox", "faults", "--set", "fail_next=POST /v1/launches/register:50"
    )
    assert fault.returncode == 0, fault.stderr
    path = write_launch(tmp_path, key="live-500")
    shown = run(environment, "launch", str(path), "--no-prefect")
    assert shown.returncode == 1 and "Traceback" not in shown.stderr
    as_json = run(environment, "resume", "live-500", "--no-prefect", "--json")
    assert as_json.returncode == 1, as_json.stderr
    result = json.loads(as_json.stdout)
    mint = result["mint"]
    assert result["state"] == "confirmed" and mint and "500" in result["error"], result
    assert result["next"] == "launchops registrations retry", result
    said = " ".join(shown.stdout.replace("│", " ").split())  # the panel's text, unwrapped
    assert "live-500: live, not registered (confirmed)" in said, said
    assert f"mint {mint}" in said and "500 Internal server error" in said, said
    assert (
        "next the token is live (its transactions landed) but not registered; register it: "
        "launchops registrations retry" in said
    ), said
    for stderr in (shown.stderr, as_json.stderr):
        [line] = [line for line in stderr.splitlines() if line.startswith("error:")]
        assert line.startswith(
            f"error: live-500 is live but not registered: its transactions landed (state "
            f"confirmed, mint {mint}); launchops registrations retry registers it. "
            "Register failed: "
        ), line
    run(environment, "sandbox", "faults", "--set", "fail_next={}")
    retried = run(environment, "registrations", "retry", "--no-prefect", "--json")
    assert retried.returncode == 0, retried.stderr
    assert json.loads(run(environment, "status", "live-500", "--json").stdout)["state"] == (
        "registered"
    )
    assert stats(sandbox)["api"]["POST /v1/launches/create"] == 1


def test_a_batch_run_again_says_its_rows_came_from_the_journal(env, tmp_path):
    sandbox, environment = env
    folder = tmp_path / "launches"
    write_launch(folder, "once.yaml", key="row-once")
    first = run(environment, "batch", str(folder), "--no-prefect", "--json")
    assert first.returncode == 0, first.stderr
    assert [r["fromJournal"] for r in json.loads(first.stdout)["launches"]] == [False]
    again = run(environment, "batch", str(folder), "--no-prefect", "--json")
    assert again.returncode == 0, again.stderr
    [row] = json.loads(again.stdout)["launches"]
    assert row["state"] == "registered" and row["fromJournal"] is True, row
    assert stats(sandbox)["api"]["POST /v1/launches/create"] == 1


def test_mainnet_refuses_to_send_without_yes(env, tmp_path):
    _, environment = env
    result = run(environment, "launch", str(write_launch(tmp_path)), "--profile", "mainnet")
    assert result.returncode == 2 and "add --yes" in result.stderr
    assert "Traceback" not in result.stderr


def test_dry_run_simulates_and_keeps_nothing(env, tmp_path):
    sandbox, environment = env
    result = run(
        environment, "launch", str(write_launch(tmp_path, key="dry")), "--dry-run", "--json"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["simulations"][0]["err"] is None and len(report["simulations"]) >= 2
    assert stats(sandbox)["rpc"].get("sendTransaction", 0) == 0
    assert json.loads(run(environment, "status", "--json").stdout) == []
    said = run(environment, "launch", str(tmp_path / "launch.yaml"), "--dry-run").stdout
    said = " ".join(said.split())
    assert "transaction 1 would succeed" in said, said
    assert "it builds on transaction 1, which a dry run does not send" in said, said
    assert "Fieldless" not in said and "InstructionError" not in said


def test_unknown_resume_key_and_missing_file(env, tmp_path):
    _, environment = env
    missing = run(environment, "resume", "nope", "--no-prefect")
    assert missing.returncode == 2 and "no launch 'nope'" in missing.stderr
    no_file = run(environment, "launch", str(tmp_path / "absent.yaml"), "--no-prefect")
    assert no_file.returncode == 2 and "no such launch file" in no_file.stderr
    not_there = run(environment, "validate", str(tmp_path / "absent.yaml"))
    assert not_there.returncode == 2 and "no such launch file" in not_there.stderr
    nothing = run(environment, "status")
    assert nothing.returncode == 0, nothing.stderr
    assert nothing.stdout == (
        "no launches in the journal of profile sandbox yet; launchops launch FILE starts one\n"
    )


def test_launch_through_prefect(env, tmp_path, prefect_server):
    from prefect.settings import PREFECT_API_URL

    sandbox, environment = env
    environment = {**environment, "PREFECT_API_URL": PREFECT_API_URL.value()}
    result = run(environment, "launch", str(write_launch(tmp_path, key="cli-prefect")), "--json")
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["state"] == "registered"
    assert stats(sandbox)["launches"]["registered"] == 1


def test_status_filters_by_state_and_by_when_a_launch_last_changed(env, tmp_path):
    _, environment = env
    launched = run(
        environment, "launch", str(write_launch(tmp_path, key="filtered")), "--no-prefect", "--json"
    )
    assert launched.returncode == 0, launched.stderr

    def keys(*options: str) -> list[str]:
        done = run(environment, "status", "--json", *options)
        assert done.returncode == 0, done.stderr
        return [row["key"] for row in json.loads(done.stdout)]

    assert keys("--state", "registered") == ["filtered"]
    assert keys("--state", "failed,needs_attention") == []
    assert keys("--since", "1h") == ["filtered"]
    assert keys("--since", "2020-01-01T00:00:00Z") == ["filtered"]
    assert keys("--since", "2999-01-01T00:00:00Z") == []
    for bad, said in (
        (["--state", "landed"], "--state landed: not a state; one of "),
        (["--since", "yesterday"], "--since 'yesterday': give a duration (30m, 2h, 1d)"),
    ):
        refused = run(environment, "status", *bad)
        assert refused.returncode == 2, refused.stderr
        [line] = refused.stderr.splitlines()
        assert line.startswith(f"error: {said}"), line
