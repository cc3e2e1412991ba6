"""The Prefect server stopped mid-batch, and a launch left needing a person while it is
away: once the server is started again (same port, same database), the alert reaches its
events API, exactly once, sent from the journal's outbox. Prefect's own events worker
would have dropped it ("event data ... may be lost")."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from launchops.journal.outbox import alerts_of
from launchops.journal.store import Journal
from tests.support import prefect_db
from tests.support.pipeline import (
    launchops,
    profile_env,
    profile_for,
    set_faults,
    started,
    write_launch,
)
from tests.support.prefect_pool import PrefectServer, kill_tree, stop
from tests.workers.test_alerts import find_events

LAUNCHES = 3
NEEDS_ATTENTION = "launchops.launch.needs_attention"


def states(journal_file: Path) -> dict[str, str]:
    """The launches' states, read beside the running batch (nothing yet: empty)."""
    try:
        with sqlite3.connect(f"file:{journal_file}?mode=ro", uri=True, timeout=10) as conn:
            return dict(conn.execute("select key, state from launches").fetchall())
    except sqlite3.OperationalError:  # no file or no table yet
        return {}


def wait_for(what: str, check: Any, batch: subprocess.Popen[str], seconds: float = 180) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert batch.poll() is None, f"the batch ended before {what}: {batch.communicate()}"
        if time.monotonic() >= deadline:
            stop(batch)
            out, err = batch.communicate()
            raise AssertionError(f"no {what} within {seconds} s: {out[-1500:]}{err[-3000:]}")
        time.sleep(0.1)
    return found


def alerts(journal_url: str, key: str) -> list[Any]:
    async def read() -> list[Any]:
        journal = await Journal.open(journal_url)
        try:
            return await alerts_of(journal, key)
        finally:
            await journal.close()

    return asyncio.run(read())


def assert_delivered_once(server: PrefectServer, journal_url: str, key: str, alert: Any) -> None:
    """The server has the journal's alert for `key` as one event, and the journal says so."""
    [event] = find_events(server.url, NEEDS_ATTENTION, key)
    [(_, delivered)] = alerts(journal_url, key)
    assert delivered is not None
    assert event["id"] == str(alert.event_id)
    assert event["payload"]["error"] == alert.change.error
    assert event["resource"]["launchops.needs-a-person"] == "true"


@pytest.mark.parametrize("batch_then", ["rides over", "dies while away"])
def test_an_alert_raised_while_the_server_is_away_reaches_it_once_it_is_back(
    tmp_path, sandbox_factory, batch_then
):
    """`rides over`: the server is started again while the batch runs, and the batch
    finishes. `dies while away`: the batch is SIGKILLed before the server is back, with
    whatever its process held for the events API; only the journal still has the alert."""
    sandbox = sandbox_factory(slot_ms=0)
    home, folder = tmp_path / "home", tmp_path / "launches"
    for index in range(LAUNCHES):
        write_launch(folder, f"outage-{index:02d}.yaml", key=f"outage-{index:02d}")
    journal_url = profile_for(sandbox, home).journal
    journal_file = Path(journal_url.removeprefix("sqlite:///"))
    with prefect_db.postgres_database("alerts") as name:
        server = PrefectServer(tmp_path / "prefect", name)
        env = profile_env(
            sandbox,
            home,
            **server.client_env(tmp_path / "client"),
            PREFECT_CLIENT_MAX_RETRIES="12",  # the flow's own API calls ride over the outage
        )
        set_faults(sandbox, latency_ms=1500)  # slow answers: the server goes away first
        batch = started(env, "batch", str(folder), "--json", "--concurrency", "1", session=True)
        try:
            wait_for("launch in the journal", lambda: states(journal_file), batch)
            server.stop()
            # Only now: the next launch created lands its first transaction and fails the
            # rest, so it needs a person; its state is written while the server is away.
            set_faults(sandbox, latency_ms=0, fail_tail_next=1)
            [key] = wait_for(
                "launch needing a person",
                lambda: [k for k, s in states(journal_file).items() if s == "needs_attention"],
                batch,
            )
            if batch_then == "dies while away":
                kill_tree(batch)
                batch.wait(timeout=60)
            [(alert, delivered)] = alerts(journal_url, key)
            assert delivered is None  # the server is away: nothing could take it
            server = PrefectServer(tmp_path / "prefect", name, port=server.port)
            if batch_then == "rides over":
                out, err = batch.communicate(timeout=300)
                counts = json.loads(out)["counts"]
                assert counts == {"registered": LAUNCHES - 1, "needs_attention": 1}, err[-3000:]
            # The scheduled registration retry sends whatever the journal still holds.
            retried = launchops(env, "registrations", "retry", "--json")
            assert "counts" in json.loads(retried.stdout), retried.stderr[-3000:]
            assert_delivered_once(server, journal_url, key, alert)
        finally:
            if batch.poll() is None:
                stop(batch)
            server.stop()
