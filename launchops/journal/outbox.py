"""The alerts' outbox as a sender reads it: what is not delivered yet, marking what was,
and a launch's alerts (the rows are written by `alerts.add_alert`, in the same
transaction as the state they announce)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import select, update

from launchops.journal.alerts import ALERTS, Alert, read_alert
from launchops.journal.store import Journal


async def undelivered(journal: Journal, limit: int = 100) -> list[Alert]:
    """The oldest alerts not yet delivered, oldest first."""
    query = select(ALERTS).where(ALERTS.c.delivered_at.is_(None)).order_by(ALERTS.c.id).limit(limit)

    def read() -> list[Alert]:
        with journal.engine.connect() as conn:
            return [read_alert(row) for row in conn.execute(query)]

    return await journal._run(read)


async def mark_delivered(journal: Journal, ids: Sequence[int]) -> None:
    """The events API took these alerts: never send them again."""

    def write() -> None:
        with journal.engine.begin() as conn:
            conn.execute(
                update(ALERTS)
                .where(ALERTS.c.id.in_(list(ids)), ALERTS.c.delivered_at.is_(None))
                .values(delivered_at=datetime.now(UTC))
            )

    if ids:
        await journal._run(write)


async def alerts_of(journal: Journal, key: str) -> list[tuple[Alert, datetime | None]]:
    """Every alert of a launch, with when it was delivered (None: not yet)."""
    query = select(ALERTS).where(ALERTS.c.key == key).order_by(ALERTS.c.id)

    def read() -> list[tuple[Alert, datetime | None]]:
        with journal.engine.connect() as conn:
            return [(read_alert(row), row.delivered_at) for row in conn.execute(query)]

    return await journal._run(read)
