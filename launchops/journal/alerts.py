"""The journal's outbox of alerts: every move into a state a person must hear about
(`ALERT_STATES`: needs_attention, register_failed, failed) is kept as a row, written in the
same transaction as the state itself, until a sender (Prefect's, in `tasks/alerts.py`)
has handed it to the events API. An event lost while the API was away is sent again from
here; nothing in launchops itself knows about Prefect.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert

from launchops.journal.records import StateChange
from launchops.journal.tables import alerts
from launchops.states import NEEDS_A_PERSON, Kind, LaunchState

ALERTS = alerts  # the outbox's table
ALERT_STATES = NEEDS_A_PERSON | {LaunchState.REGISTER_FAILED}
EVENT_PREFIX = "launchops.launch"  # events are `launchops.launch.<state>`
_NAMESPACE = uuid.UUID("6f0c3c1e-5a8b-4f2e-9d6a-1c2b3a4d5e6f")  # launchops' alert ids


@dataclass(frozen=True)
class Alert:
    """One outbox row: the state change, when it happened, and its stable event id."""

    id: int
    change: StateChange
    created_at: datetime

    @property
    def event_id(self) -> uuid.UUID:
        """The same for every send of this alert (uuid5 of the row), so the events API can
        drop a second copy of it."""
        stamp = self.created_at.isoformat()
        return uuid.uuid5(_NAMESPACE, f"{self.change.key}/{self.change.state}/{self.id}/{stamp}")


def add_alert(conn: Connection, change: StateChange, at: datetime) -> None:
    """In the state's own transaction: an alert row, if the state is one a person needs."""
    if change.state not in ALERT_STATES:
        return
    conn.execute(
        insert(ALERTS).values(
            key=change.key,
            kind=str(change.kind),
            state=str(change.state),
            event=f"{EVENT_PREFIX}.{change.state}",
            network=change.network,
            mint=change.mint,
            genesis=change.genesis,
            error=change.error,
            created_at=at,
        )
    )


def read_alert(row: Any) -> Alert:
    """An alert as its row keeps it."""
    change = StateChange(
        row.key,
        Kind(row.kind),
        LaunchState(row.state),
        row.network,
        row.mint,
        row.genesis,
        row.error,
    )
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return Alert(row.id, change, created)
