"""The local Prefect server commands share (no PREFECT_API_URL, the default): the first
command that runs a flow starts it, the next finds it and pays no start, a command killed
with `kill -9` leaves it serving the re-run, it stops itself once idle, and `launchops
prefect status` and `stop` list and stop it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from launchops.cli.kept_server import folder_of
from tests.support import prefect_db
from tests.support.pipeline import launchops, profile_env, write_launch


def _env(sandbox, tmp_path: Path, idle: float = 120) -> dict[str, str]:
    home = prefect_db.seed_home(tmp_path / "prefect")  # migrated, as after a first start
    env = profile_env(
        sandbox,
        tmp_path / "home",
        PREFECT_HOME=str(home),
        LAUNCHOPS_PREFECT_IDLE_SECONDS=str(idle),
    )
    env.pop("PREFECT_API_URL", None)
    env.pop("LAUNCHOPS_PREFECT_SERVER", None)
    return env


def _status(env: dict[str, str]) -> dict:
    done = launchops(env, "prefect", "status", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


def test_commands_share_one_server_that_outlives_them(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = _env(sandbox, tmp_path)
    folder = tmp_path / "launches"
    first = launchops(env, "launch", str(write_launch(folder, "a.yaml", key="kept-a")), "--json")
    assert first.returncode == 0, first.stderr[-2000:]
    running = _status(env)
    assert running["running"] and running["url"].startswith("http://127.0.0.1:")
    second = launchops(env, "launch", str(write_launch(folder, "b.yaml", key="kept-b")), "--json")
    assert second.returncode == 0, second.stderr[-2000:]
    assert json.loads(second.stdout)["state"] == "registered"
    assert _status(env)["pid"] == running["pid"]  # found, not started again
    stopped = launchops(env, "prefect", "stop")
    assert stopped.returncode == 0 and "stopped the local Prefect server" in stopped.stdout
    assert not _alive(running["pid"]) and not _status(env)["running"]
    for done in (first, second):
        assert "Traceback" not in done.stderr


def test_a_command_killed_leaves_the_server_to_its_rerun(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = _env(sandbox, tmp_path)
    file = write_launch(tmp_path / "launches", key="kept-killed")
    done = launchops(env, "launch", str(file), "--json", kill="sign: journaled")
    assert done.returncode == -9, done.stderr[-2000:]
    running = _status(env)
    assert running["running"], running
    again = launchops(env, "launch", str(file), "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["state"] == "registered"
    assert _status(env)["pid"] == running["pid"]
    launchops(env, "prefect", "stop")


def test_an_idle_server_stops_itself(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = _env(sandbox, tmp_path, idle=2)
    retry = launchops(env, "launch", str(write_launch(tmp_path / "l", key="kept-idle")))
    assert retry.returncode == 0, retry.stderr[-2000:]
    record = folder_of(tmp_path / "home" / "sandbox") / "server.json"
    pid = json.loads(record.read_text())["pid"]
    deadline = time.monotonic() + 60
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(pid), "the idle server did not stop"
    assert not record.exists()
    assert not _status(env)["running"]
