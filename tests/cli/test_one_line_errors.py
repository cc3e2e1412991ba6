"""Errors are what the README promises through either driver: the error on stderr, no
traceback (unless `--debug` asks), the same as `--no-prefect` says; a key file others
can read is one warning line. Each runs the CLI in a subprocess, as a user does. A refusal
is checked with no Prefect server configured (Prefect must not start for it); a flow that
runs, on the session's Prefect server (what a temporary server adds or leaves behind is
tests/cli/test_temporary_server.py's)."""

from __future__ import annotations

import json
import os
import time

import pytest
from solders.keypair import Keypair

import launchops.web as web
from tests.support.pipeline import launchops, profile_env, stats, write_launch


@pytest.fixture
def env(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    environment = profile_env(sandbox, tmp_path / "home", PREFECT_HOME=str(tmp_path / "prefect"))
    environment.pop("PREFECT_API_URL", None)  # Prefect's temporary server, if one started
    return sandbox, environment


@pytest.fixture
def on_server(env, prefect_env):
    """`env` with the session's Prefect server configured."""
    sandbox, environment = env
    return sandbox, {**environment, **prefect_env}


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "Flow run" not in stderr and "Task run" not in stderr


def test_an_invalid_file_is_refused_before_prefect_starts(env, tmp_path):
    _, environment = env
    bad = write_launch(tmp_path, "bad.yaml", key="bad-file", symbol="FIFTEEN-CHARSXX")
    started = time.monotonic()
    through_prefect = launchops(environment, "launch", str(bad), fresh=True)
    took = time.monotonic() - started
    plain = launchops(environment, "launch", str(bad), "--no-prefect")
    assert through_prefect.returncode == plain.returncode == 1
    assert through_prefect.stderr == plain.stderr, through_prefect.stderr
    assert "symbol: must be 1 to 10 characters" in through_prefect.stderr
    _no_traceback(through_prefect.stderr)
    assert not (tmp_path / "prefect").exists(), f"Prefect started ({took:.1f} s)"


def test_an_unknown_key_is_one_line_through_either_driver(env):
    _, environment = env
    through_prefect = launchops(environment, "resume", "no-such-key", fresh=True)
    plain = launchops(environment, "resume", "no-such-key", "--no-prefect")
    assert through_prefect.returncode == plain.returncode == 2
    assert through_prefect.stderr == plain.stderr
    [line] = through_prefect.stderr.splitlines()
    assert "no launch 'no-such-key' in the journal of profile sandbox" in line
    assert not os.path.exists(environment["PREFECT_HOME"]), "Prefect started"


def test_a_prefect_api_that_does_not_answer_is_one_line_and_launches_nothing(env, tmp_path):
    sandbox, environment = env
    launch = write_launch(tmp_path, key="prefect-is-down")
    for url in ("http://127.0.0.1:9/api", "http://prefect.invalid/api"):  # refused, no name
        done = launchops({**environment, "PREFECT_API_URL": url}, "launch", str(launch))
        assert done.returncode == 1, done.stderr
        _no_traceback(done.stderr)
        [line] = done.stderr.splitlines()
        assert line.startswith(f"error: the Prefect API {url} (PREFECT_API_URL) does not answer")
        assert line.endswith("or run with --no-prefect"), line
    down = {**environment, "PREFECT_API_URL": "http://127.0.0.1:9/api"}
    for how, ends in (("--serve", "a server of this command's own"), ("--pool", "there)")):
        done = launchops(down, "deploy", how, *(["launchops"] if how == "--pool" else []))
        assert done.returncode == 1, done.stderr
        _no_traceback(done.stderr)
        [line] = done.stderr.splitlines()
        assert "(PREFECT_API_URL) does not answer" in line and line.endswith(ends), line
    assert json.loads(launchops(environment, "status", "--json").stdout) == []
    assert "POST /v1/launches/create" not in stats(sandbox)["api"]


def test_a_failed_flow_run_is_the_error_line_and_debug_shows_prefects(on_server, tmp_path):
    _, environment = on_server
    launches = tmp_path / "launches"
    first = write_launch(launches, "one.yaml", key="taken")
    assert launchops(environment, "launch", str(first), "--no-prefect").returncode == 0
    changed = write_launch(launches, "two.yaml", key="taken", name="Another Token")
    plain = launchops(environment, "launch", str(changed), "--no-prefect")
    through_prefect = launchops(environment, "launch", str(changed))
    # A changed file under a known key: a refusal, exit 2, the flow run's error its line.
    assert through_prefect.returncode == plain.returncode == 2, through_prefect.stderr[-3000:]
    _no_traceback(through_prefect.stderr)
    assert through_prefect.stderr.strip().splitlines() == plain.stderr.strip().splitlines()
    debugged = launchops(environment, "--debug", "launch", str(changed))
    assert debugged.returncode == 2 and "Traceback" in debugged.stderr


def test_a_key_file_others_can_read_is_one_warning_line(on_server, tmp_path):
    sandbox, environment = on_server
    keypair = Keypair()
    key_file = tmp_path / "id.json"
    key_file.write_text(str(list(bytes(keypair))))
    key_file.chmod(0o644)
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "requestAirdrop"}
    web.post(sandbox.rpc_url, json={**rpc, "params": [str(keypair.pubkey()), 10**10]})
    environment = {**environment, "LAUNCHOPS_KEYPAIR": f"file:{key_file}"}
    result = launchops(environment, "launch", str(write_launch(tmp_path, key="open-key")))
    assert result.returncode == 0, result.stderr[-3000:]
    warnings = [line for line in result.stderr.splitlines() if "readable by other users" in line]
    assert warnings == [
        f"warning: keypair file {key_file} is readable by other users; run: chmod 600 {key_file}"
    ], result.stderr
    assert "KeypairPermissionWarning" not in result.stderr and "load_keypair" not in result.stderr
    assert str(keypair) not in result.stderr + result.stdout


def test_a_base_url_without_its_api_says_so(env, tmp_path):
    """A 404 from create, which the contract never answers with it: the error names the
    base URL to fix, not only "Not found"."""
    sandbox, environment = env
    base = sandbox.base_url.removesuffix("/v1")  # the service's root, not its API
    environment = {**environment, "LAUNCHOPS_BASE_URL": base}
    launch = str(write_launch(tmp_path))
    result = launchops(environment, "launch", launch, "--no-prefect", "--json")
    assert result.returncode == 1, result.stderr[-3000:]
    _no_traceback(result.stderr)
    error = json.loads(result.stdout)["error"]
    assert error == (
        f"404 Not found: no POST /launches/create under {base}; is the base URL right? "
        "(the API's ends in /v1: --base-url, LAUNCHOPS_BASE_URL or the profile's base_url)"
    ), error
