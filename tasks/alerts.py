"""Delivering the journal's outbox of alerts (`launchops.journal.alerts`) to the Prefect
events API, so a state a person must hear about reaches the automations even when the
server was away when it happened.

Prefect's background events worker gives up on an event after its reconnection attempts
("event data ... may be lost"); these alerts instead stay in the journal until a send
succeeded. A sender runs right after each alert is written (in the background of the flow
run), when each flow run's context closes (batch, launch, registration retry, funding),
and at the start of the registration retry flow, which runs on a schedule: what an outage
kept back goes out when the server is back.

At most once where possible: an alert is marked delivered right after the server took it
(a pong after the sends: its socket read them; a server that dies before persisting them
loses them, as with any Prefect event). A crash between the send and the mark, or two
workers' senders reading the same rows at once, sends it again with the same id (uuid5
of the alert row): Prefect's event store keeps one copy, and its triggers skip an id they
saw in the last half hour, so an automation pages once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from launchops.tasks.events import launch_event

from launchops.journal.alerts import ALERT_STATES, Alert
from launchops.journal.outbox import mark_delivered, undelivered
from launchops.journal.records import StateChange

if TYPE_CHECKING:
    from prefect.events import Event

    from launchops.journal.store import Journal

logger = logging.getLogger("launchops.alerts")

PAGE = 100
RECONNECTS = 2  # a sender tries three times, then leaves the rest to the next one
# One page's delivery (connect, send, the server's confirmation) at most: a socket that
# takes the frames and never answers (a server stalled, a half-open connection) would
# otherwise hold the flow run at its end for ever; the alerts stay for the next sender.
DELIVERY_SECONDS = 30.0


def alert_event(alert: Alert) -> Event:
    """The alert as the Prefect event of its state change, with its stable id and the time
    it happened (not the time it was sent)."""
    from prefect.events import Event

    return Event(id=alert.event_id, occurred=alert.created_at, **launch_event(alert.change))


async def _confirmed(client: Any) -> None:
    """Wait until the server has read everything sent so far: a ping answered by a pong
    comes after every earlier frame (what Prefect's own client calls a checkpoint)."""
    websocket = getattr(client, "_websocket", None)
    if websocket is not None:
        pong = await websocket.ping()
        await pong


async def deliver_alerts(journal: Journal) -> int:
    """Send every undelivered alert, oldest first, marking each page delivered once the
    server confirmed it. Never raises: an unreachable API leaves the alerts for the next
    sender (one warning line). Returns how many were delivered."""
    from prefect.events.clients import get_events_client

    delivered = 0
    try:
        while alerts := await undelivered(journal, PAGE):
            async with (
                asyncio.timeout(DELIVERY_SECONDS),
                get_events_client(reconnection_attempts=RECONNECTS) as client,
            ):
                for alert in alerts:
                    await client.emit(alert_event(alert))
                await _confirmed(client)
            # A crash here sends this page again: same event ids, see the module's doc.
            await mark_delivered(journal, [alert.id for alert in alerts])
            delivered += len(alerts)
            if len(alerts) < PAGE:
                break
    except Exception as exc:  # the API is away or silent: the journal keeps the alerts
        left = await _count_left(journal)
        why = str(exc) or f"no confirmation within {DELIVERY_SECONDS:g} s"
        logger.warning(
            "alerts: %d not delivered (%s: %s); sent again by the next run or retry",
            left,
            type(exc).__name__,
            why,
        )
    return delivered


async def _count_left(journal: Journal) -> int:
    try:
        return len(await undelivered(journal, PAGE))
    except Exception:  # the journal too: say what we can
        return -1


class AlertSender:
    """A flow run's sender: `watch` starts a delivery (in the background, on the flow's
    event loop) whenever an alert state is committed; `close` waits for them and sends what
    is still undelivered, before the journal closes. One delivery at a time."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._loop = asyncio.get_running_loop()
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[int]] = set()

    def watch(self, change: StateChange) -> None:
        if change.state in ALERT_STATES:
            self._loop.call_soon_threadsafe(self._start)

    def _start(self) -> None:
        task = self._loop.create_task(self.deliver())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def deliver(self) -> int:
        async with self._lock:
            return await deliver_alerts(self.journal)

    async def close(self) -> int:
        await asyncio.gather(*list(self._tasks), return_exceptions=True)
        return await self.deliver()
