"""The journal's outbox of alerts and its sender: a state a person must hear about is kept
in the same transaction as the state, sent to the Prefect events API with a stable id,
marked delivered only once the server took it, and kept when the server is away."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from launchops.tasks.alerts import deliver_alerts

import launchops.web as web
from launchops.journal.outbox import alerts_of, undelivered
from launchops.journal.store import Journal
from launchops.states import LaunchState, Step

S = LaunchState


async def journal_with(path: Path, key: str, *states: LaunchState) -> Journal:
    journal = await Journal.open(f"sqlite:///{path / 'journal.db'}")
    await walk(journal, key, *states)
    return journal


async def walk(journal: Journal, key: str, *states: LaunchState) -> None:
    """Record the launch and move it through `states` (a path the transition table allows),
    under a lease, as a step would."""
    await journal.begin(
        key, config={"name": key}, config_hash="h" * 64, network="solana-devnet", source=None
    )
    lease = await journal.acquire(key, "test", ttl=60)
    assert lease is not None
    journal.held[key] = lease
    for state in states:
        error = "2 of 3 transactions failed on chain" if state == S.NEEDS_ATTENTION else None
        await journal.set_state(key, state, step=Step.SUBMIT, message=str(state), error=error)


def find_events(api: str, name: str, key: str, deadline: float = 60) -> list[dict[str, Any]]:
    """The events `name` about launch `key` on the server, waiting for them (the server's
    persister writes once a second)."""
    since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    body = {"filter": {"occurred": {"since": since}, "event": {"name": [name]}}, "limit": 50}
    end = time.monotonic() + deadline
    while True:
        found = [
            event
            for event in web.post(f"{api}/events/filter", json=body, timeout=30).json()["events"]
            if event["resource"]["prefect.resource.name"] == key
        ]
        if found or time.monotonic() > end:
            return found
        time.sleep(0.5)


def test_only_states_a_person_must_hear_about_are_kept(tmp_path):
    async def main() -> None:
        journal = await journal_with(tmp_path, "kept-a", S.CREATED, S.SIGNED, S.NEEDS_ATTENTION)
        landed = (S.CREATED, S.SIGNED, S.SUBMITTING, S.SUBMITTED, S.CONFIRMED)
        await walk(journal, "kept-b", *landed, S.REGISTER_FAILED)
        await walk(journal, "kept-c", S.FAILED)
        try:
            kept = [
                alert
                for key in ("kept-a", "kept-b", "kept-c")
                for alert in await alerts_of(journal, key)
            ]
            assert [a.change.state for a, _ in kept] == [
                S.NEEDS_ATTENTION,
                S.REGISTER_FAILED,
                S.FAILED,
            ]
            assert all(delivered is None for _, delivered in kept)
            first = kept[0][0]
            assert first.change.error == "2 of 3 transactions failed on chain"
            assert first.change.network == "solana-devnet"
            assert len({a.event_id for a, _ in kept}) == 3
        finally:
            await journal.close()

    asyncio.run(main())


def kept_when_away(tmp_path: Path, caplog: Any, api: str, key: str) -> tuple[float, str]:
    """Deliver one launch's alert to the API at `api`: none delivered, the journal keeps
    it; how long the sender took and its one warning line."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    async def main() -> None:
        journal = await journal_with(tmp_path, key, S.CREATED, S.SIGNED, S.NEEDS_ATTENTION)
        try:
            assert await deliver_alerts(journal) == 0
            assert [a.change.key for a in await undelivered(journal)] == [key]
        finally:
            await journal.close()

    with (
        temporary_settings({PREFECT_API_URL: api}),
        caplog.at_level(logging.WARNING, logger="launchops.alerts"),
    ):
        started = time.monotonic()
        asyncio.run(main())
    [line] = [r.getMessage() for r in caplog.records if r.name == "launchops.alerts"]
    assert "\n" not in line
    return time.monotonic() - started, line


def test_an_unreachable_api_keeps_the_alerts(tmp_path, caplog):
    took, line = kept_when_away(tmp_path, caplog, "http://127.0.0.1:9/api", "away")
    assert took < 30 and line.startswith("alerts: 1 not delivered ("), line


def test_an_api_that_never_answers_keeps_the_alerts_within_the_bound(tmp_path, caplog, monkeypatch):
    """A server that takes the connection and never says a word (stalled, half-open): the
    sender gives up at its bound and the journal keeps the alert, instead of holding the
    flow run at its end for ever (a pool test's batch once hung 300 s there)."""
    import socket

    from launchops.tasks import alerts

    monkeypatch.setattr(alerts, "DELIVERY_SECONDS", 2.0)
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts, never answers
        api = f"http://127.0.0.1:{silent.getsockname()[1]}/api"
        took, line = kept_when_away(tmp_path, caplog, api, "silent")
    assert took < 10, took
    assert line.startswith("alerts: 1 not delivered (TimeoutError: no confirmation within 2 s)")


def test_alerts_are_delivered_once_with_a_stable_id(tmp_path, prefect_server):
    from prefect.settings import PREFECT_API_URL

    async def main() -> tuple[Any, int, int]:
        journal = await journal_with(tmp_path, "paged", S.CREATED, S.SIGNED, S.NEEDS_ATTENTION)
        try:
            [(alert, _)] = await alerts_of(journal, "paged")
            sent = await deliver_alerts(journal)
            again = await deliver_alerts(journal)
            [(_, delivered)] = await alerts_of(journal, "paged")
            assert delivered is not None
            return alert, sent, again
        finally:
            await journal.close()

    alert, sent, again = asyncio.run(main())
    assert (sent, again) == (1, 0)
    [event] = find_events(str(PREFECT_API_URL.value()), "launchops.launch.needs_attention", "paged")
    assert event["id"] == str(alert.event_id)
    assert event["payload"]["error"] == "2 of 3 transactions failed on chain"
    assert event["resource"]["launchops.needs-a-person"] == "true"
    assert datetime.fromisoformat(event["occurred"]) == alert.created_at
