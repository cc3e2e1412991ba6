"""The journal's rows, read and written inside one connection: what `Journal` runs in its
threads. JSON (camelCase) stops here: rows in, typed records out."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, text, update
from sqlalchemy.engine import make_url

from launchops.journal.alerts import add_alert
from launchops.journal.records import (
    Attempt,
    Created,
    LaunchRecord,
    Registered,
    Send,
    StateChange,
)
from launchops.journal.tables import AttemptRow, Base, EventRow, LaunchRow
from launchops.states import Kind, LaunchState, Outcome


def now() -> datetime:
    return datetime.now(UTC)


def utc(value: datetime | None) -> datetime | None:
    # SQLite hands back naive datetimes; everything here is UTC.
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def sync_url(url: str) -> str:
    """A SQLAlchemy URL with the driver launchops uses for its dialect."""
    parsed = make_url(url)
    drivers = {"postgresql": "postgresql+psycopg"}
    if parsed.drivername in drivers:
        parsed = parsed.set(drivername=drivers[parsed.drivername])
    return parsed.render_as_string(hide_password=False)


L, A, E = LaunchRow.__table__, AttemptRow.__table__, EventRow.__table__


def create_tables(engine: Engine) -> None:
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            # Workers starting together would race CREATE TABLE; one at a time.
            conn.execute(text("select pg_advisory_xact_lock(8004202611)"))
        Base.metadata.create_all(conn)


def read_record(conn: Connection, key: str) -> LaunchRecord | None:
    row = conn.execute(select(L).where(L.c.key == key)).first()
    if row is None:
        return None
    attempts = conn.execute(select(A).where(A.c.key == key).order_by(A.c.number)).all()
    return record_of(row, list(attempts))


def add_event(
    conn: Connection, key: str, step: str, message: str, at: datetime | None = None
) -> None:
    conn.execute(insert(E).values(key=key, at=at or now(), step=str(step), message=message))


def sqlite_pragmas(connection: Any, _: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("pragma journal_mode=wal")
    cursor.execute("pragma busy_timeout=30000")
    cursor.execute("pragma synchronous=normal")
    cursor.close()


def set_launch(conn: Connection, key: str, **values: Any) -> StateChange | None:
    """One UPDATE of the launch row (no read first: the lease makes us its only writer);
    the state change it makes, if it sets the state (and its alert, if a person needs it)."""
    statement = update(L).where(L.c.key == key).values(**values, updated_at=now())
    if "state" not in values:
        result = conn.execute(statement)
        assert result.rowcount == 1, key
        return None
    row = conn.execute(statement.returning(L.c.kind, L.c.network, L.c.mint, L.c.genesis)).one()
    state = LaunchState(values["state"])
    change = StateChange(
        key, Kind(row.kind), state, row.network, row.mint, row.genesis, values.get("last_error")
    )
    add_alert(conn, change, now())  # the outbox, in this same transaction
    return change


def set_attempt(conn: Connection, key: str, number: int, **values: Any) -> None:
    result = conn.execute(
        update(A).where(A.c.key == key, A.c.number == number).values(**values, updated_at=now())
    )
    assert result.rowcount == 1, (key, number)


def anything_sent(conn: Connection, key: str) -> bool:
    rows = conn.execute(select(A.c.sends).where(A.c.key == key)).all()
    return any(any(s.get("sent") for s in (row.sends or [])) for row in rows)


def encoded(signed: Sequence[bytes]) -> list[str]:
    return [base64.b64encode(t).decode() for t in signed]


def sends_json(sends: Sequence[Send]) -> list[dict[str, Any]]:
    return [s.to_json() for s in sends]


def attempt_of(row: Any) -> Attempt:
    return Attempt(
        number=row.number,
        created=Created.from_json(row.created),
        signed=tuple(base64.b64decode(t) for t in row.signed) if row.signed else None,
        sends=tuple(Send.from_json(s) for s in row.sends) if row.sends else None,
        outcome=Outcome(row.outcome) if row.outcome else None,
    )


def record_of(row: Any, attempts: list[Any]) -> LaunchRecord:
    converted = [attempt_of(a) for a in attempts]
    current = next((a for a in converted if a.number == row.attempt), None)
    return LaunchRecord(
        key=row.key,
        kind=Kind(row.kind),
        state=LaunchState(row.state),
        config=row.config,
        config_hash=row.config_hash,
        network=row.network,
        source=row.source,
        attempt=row.attempt,
        mint=row.mint,
        genesis=row.genesis,
        registered=Registered.from_json(row.result) if row.result else None,
        last_error=row.last_error,
        error_details=row.error_details,
        created_at=utc(row.created_at) or row.created_at,
        updated_at=utc(row.updated_at) or row.updated_at,
        lease_owner=row.lease_owner,
        lease_expires=utc(row.lease_expires),
        current=current,
        attempts=converted,
    )


@dataclass(frozen=True)
class NewLaunch:
    """A launch to record, as `begin` was asked."""

    key: str
    config: dict[str, Any]
    config_hash: str
    network: str
    source: str | None
    kind: Kind
    replace: bool
