"""The sandbox stops at once when nothing is open (every command on the embedded sandbox
ends with that stop), and lets an answer in flight finish first when something is."""

from __future__ import annotations

import threading

import httpx
import pytest

from launchops.sandbox.server import Sandbox, SandboxConfig
from tests.support.pipeline import set_faults


def test_a_stop_with_a_keep_alive_connection_open_ends_the_server():
    sandbox = Sandbox(SandboxConfig(port=0, slot_ms=0)).start()
    with httpx.Client(base_url=sandbox.url, timeout=5) as client:
        assert client.get("/_sandbox/launches").status_code == 200  # the connection stays
        sandbox.stop()
        assert sandbox._thread is not None and not sandbox._thread.is_alive()
        with pytest.raises(httpx.TransportError):
            client.get("/_sandbox/launches")


def test_a_stop_during_a_slow_answer_lets_the_answer_finish():
    sandbox = Sandbox(SandboxConfig(port=0, slot_ms=0)).start()
    set_faults(sandbox, latency_ms=700)
    answers: list[int] = []

    def ask() -> None:
        body = {"jsonrpc": "2.0", "id": 1, "method": "getSlot"}
        answers.append(httpx.post(sandbox.url, json=body, timeout=10).status_code)

    tasks = sandbox._servers[0].server_state.tasks  # a task a request being answered
    while tasks:  # the answer to set_faults, sent, its task not yet ended
        threading.Event().wait(0.01)
    asking = threading.Thread(target=ask)
    asking.start()
    while not tasks:  # until the request is in, its answer delayed
        threading.Event().wait(0.01)
    sandbox.stop()
    asking.join(timeout=10)
    assert answers == [200]
    assert sandbox._thread is not None and not sandbox._thread.is_alive()
