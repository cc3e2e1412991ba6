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
    """The process's state letter and its CPU seconds so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
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
        while _stat(server.process.pid)[0] != "T" and time.monotonic() < deadline:
            time.sleep(0.05)
        state, before = _stat(server.process.pid)
        assert state == "T"
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
