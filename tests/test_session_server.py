"""The suite's own Prefect server (tests/support/session_server.py) sleeps between the
tests that use it: asleep it spends no CPU, and awake again it answers at once, on the
data it held."""

from __future__ import annotations

import os
import time
from pathlib import Path

from launchops import web
from tests.support import session_server

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[str, float]:
    """The process's state letter (its main thread's) and its CPU seconds so far."""
    return _stat_of(Path(f"/proc/{pid}"))


def _all_stopped(pid: int) -> bool:
    """Whether every thread of the process has stopped: the main thread's state says
    stopped while another, runnable on a busy machine, has yet to take the signal (and
    may spend a tick before it does)."""
    states = {_stat_of(task)[0] for task in Path(f"/proc/{pid}/task").iterdir()}
    return states == {"T"}


def _stat_of(task: Path) -> tuple[str, float]:
    """A process's or a thread's (/proc/PID/task/TID) state letter and CPU seconds."""
    fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
    return fields[0], (int(fields[11]) + int(fields[12])) / TICKS


def test_asleep_it_spends_nothing_and_awake_it_answers_with_what_it_held(tmp_path):
    before_it = session_server.current  # the process's own, when it has started one
    with session_server.running(tmp_path) as url:
        server = session_server.current
        assert server is not None and server.url == url
        made = web.request("POST", f"{url}/variables/", json={"name": "kept", "value": "1"})
        assert made.status_code == 201, made.text

        server.pause()
        deadline = time.monotonic() + 5
        while not _all_stopped(server.process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _all_stopped(server.process.pid)
        before = _stat(server.process.pid)[1]
        time.sleep(1.5)  # awake and idle, it would spend ~25 ms of CPU in this time
        assert _stat(server.process.pid)[1] == before

        server.resume()
        assert _stat(server.process.pid)[0] != "T"
        kept = web.get(f"{url}/variables/name/kept", timeout=5)
        assert kept.status_code == 200 and kept.json()["value"] == "1"
    assert session_server.current is before_it


def test_a_server_started_inside_anothers_block_gives_it_back(tmp_path):
    before_it = session_server.current
    with session_server.running(tmp_path / "outer") as outer:
        with session_server.running(tmp_path / "inner") as inner:
            assert session_server.current is not None and session_server.current.url == inner
        assert session_server.current is not None and session_server.current.url == outer
    assert session_server.current is before_it
