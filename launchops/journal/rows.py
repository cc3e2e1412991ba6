"""The journal's rows, read and written inside one connection: what `Journal` runs in its
threads. JSON (camelCase) stops here: rows in, typed records out."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, insert, inspect, select, text, update
from sqlalchemy.engine import make_url

from launchops.errors import JournalError, LeaseLost
from launchops.journal.alerts import add_alert
from launchops.journal.records import (
    Attempt,
    Created,
    LaunchRecord,
    Lease,
    Registered,
    Send,
    Spent,
    StateChange,
)
from launchops.journal.tables import attempts, events, launches, metadata
from launchops.locks import file_lock
from launchops.states import BEFORE_SENDING, Kind, LaunchState, Outcome, transition


def now() -> datetime:
    """The current time, aware and in UTC: the stamp of every write."""
    return datetime.now(UTC)


def utc(value: datetime | None) -> datetime | None:
    """`value` as an aware UTC datetime (a naive one is UTC, as SQLite hands it
    back); None stays None."""
    # SQLite hands back naive datetimes; everything here is UTC.
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def sync_url(url: str) -> str:
    """A SQLAlchemy URL with the driver launchops uses for its dialect."""
    parsed = make_url(url)
    drivers = {"postgresql": "postgresql+psycopg"}
    if parsed.drivername in drivers:
        parsed = parsed.set(drivername=drivers[parsed.drivername])
    return parsed.render_as_string(hide_password=False)


# Columns the launches table gained after journals were already in use: each is added
# when an older journal opens.
ADDED_COLUMNS = {
    "lease_epoch": "integer not null default 0",  # leases fenced
    "worker": "varchar(120)",  # the worker's name a column, not parsed out of events
}


# Columns the attempts table gained so: fees and tips spent (landing on a busy cluster).
ADDED_ATTEMPT_COLUMNS = {"spent": "json"}


def create_tables(engine: Engine) -> None:
    """Create the journal's tables where missing, and add the columns an older journal
    lacks (`ADDED_COLUMNS`), under a lock every process respects, so processes opening a
    new journal together do not race: PostgreSQL's advisory lock, and for a SQLite file an
    exclusive lock on the file beside it (`journal.db.lock`)."""
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and database != ":memory:":
        with file_lock(Path(database).expanduser().with_name(Path(database).name + ".lock")):
            _create(engine)
    else:
        _create(engine)


def _create(engine: Engine) -> None:
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            # Workers starting together would race CREATE TABLE; one at a time.
            conn.execute(text("select pg_advisory_xact_lock(8004202611)"))
        metadata.create_all(conn)
        columns = {c["name"] for c in inspect(conn).get_columns("launches")}
        for column, added in ADDED_COLUMNS.items():
            if column not in columns:  # a journal made before the column was
                conn.execute(text(f"alter table launches add column {column} {added}"))
        columns = {c["name"] for c in inspect(conn).get_columns("create_attempts")}
        for column, added in ADDED_ATTEMPT_COLUMNS.items():
            if column not in columns:
                conn.execute(text(f"alter table create_attempts add column {column} {added}"))


def read_record(conn: Connection, key: str) -> LaunchRecord | None:
    """The journal entry `key` with all its create attempts, or None when there is none."""
    row = conn.execute(select(launches).where(launches.c.key == key)).first()
    if row is None:
        return None
    tried = conn.execute(
        select(attempts).where(attempts.c.key == key).order_by(attempts.c.number)
    ).all()
    return record_of(row, list(tried))


def add_event(
    conn: Connection, key: str, step: str, message: str, at: datetime | None = None
) -> None:
    """Add a line to the entry's event log: `step` and `message`, at `at` (default: now)."""
    conn.execute(insert(events).values(key=key, at=at or now(), step=str(step), message=message))


def sqlite_pragmas(connection: Any, _: Any) -> None:
    """A SQLite connection's settings, on connect: WAL, a 30-second busy timeout,
    synchronous=normal."""
    cursor = connection.cursor()
    cursor.execute("pragma journal_mode=wal")
    cursor.execute("pragma busy_timeout=30000")
    cursor.execute("pragma synchronous=normal")
    cursor.close()


def fence(conn: Connection, lease: Lease) -> tuple[Kind, LaunchState]:
    """Lock the launch's row if `lease` still holds it (owner and fencing number, in the
    one UPDATE), for the rest of the write's transaction: a take-over waits for it, and
    one that came first leaves nothing to match. The launch's kind and state; LeaseLost
    when another worker holds it now."""
    row = conn.execute(
        update(launches)
        .where(*held_by(lease))
        .values(updated_at=now())
        .returning(launches.c.kind, launches.c.state)
    ).first()
    if row is None:
        raise LeaseLost(lease.key)
    return Kind(row.kind), LaunchState(row.state)


def held_by(lease: Lease) -> tuple[Any, ...]:
    """The launch row, while `lease` holds it."""
    return (
        launches.c.key == lease.key,
        launches.c.lease_owner == lease.owner,
        launches.c.lease_epoch == lease.epoch,
    )


def allowed(key: str, kind: Kind, since: LaunchState, state: LaunchState) -> None:
    """Refuse a state the transition table does not let the step from `since` leave."""
    move = transition(since, kind)
    if state not in move.leads_to:
        may = ", ".join(sorted(move.leads_to)) or "nothing"
        raise JournalError(
            f"launch {key}: the journal refused to move it from {since} to {state}; "
            f"the transition table allows {may} from there"
        )


@dataclass(frozen=True)
class Held:
    """One write transaction on a launch, under a lease still held: the row is locked and
    its kind and state known, so each write below is fenced and checked."""

    conn: Connection
    lease: Lease
    kind: Kind
    state: LaunchState

    @classmethod
    def take(cls, conn: Connection, lease: Lease) -> Held:
        return cls(conn, lease, *fence(conn, lease))

    @property
    def key(self) -> str:
        return self.lease.key

    def set_launch(self, **values: Any) -> StateChange | None:
        """One UPDATE of the launch row, where `lease` still holds it (checked again in
        the statement); the state change it makes, if it sets the state (one the
        transition table allows from where the launch is), and its alert if a person
        needs it."""
        if "state" in values:
            allowed(self.key, self.kind, self.state, LaunchState(values["state"]))
        statement = update(launches).where(*held_by(self.lease)).values(**values, updated_at=now())
        row = self.conn.execute(
            statement.returning(
                launches.c.kind, launches.c.network, launches.c.mint, launches.c.genesis
            )
        ).first()
        if row is None:
            raise LeaseLost(self.key)
        if "state" not in values:
            return None
        state = LaunchState(values["state"])
        change = StateChange(
            self.key,
            Kind(row.kind),
            state,
            row.network,
            row.mint,
            row.genesis,
            values.get("last_error"),
        )
        add_alert(self.conn, change, now())  # the outbox, in this same transaction
        return change

    def set_attempt(self, number: int, **values: Any) -> None:
        result = self.conn.execute(
            update(attempts)
            .where(attempts.c.key == self.key, attempts.c.number == number)
            .values(**values, updated_at=now())
        )
        if result.rowcount != 1:
            raise JournalError(f"launch {self.key}: the journal has no create attempt {number}")

    def add_attempt(self, number: int, created: dict[str, Any]) -> None:
        known = select(attempts.c.number).where(
            attempts.c.key == self.key, attempts.c.number == number
        )
        if self.conn.execute(known).first() is not None:
            raise JournalError(
                f"launch {self.key}: create attempt {number} is already in the journal"
            )
        stamp = now()
        self.conn.execute(
            insert(attempts).values(
                key=self.key, number=number, created=created, created_at=stamp, updated_at=stamp
            )
        )

    def event(self, step: str, message: str) -> None:
        add_event(self.conn, self.key, step, message)


def reset_launch(conn: Connection, key: str, **values: Any) -> None:
    """A launch recorded again under a changed config (`begin --replace`): whoever held its
    lease holds it no more (the fencing number moves on), so nothing it does lands here."""
    conn.execute(
        update(launches)
        .where(launches.c.key == key)
        .values(
            **values,
            lease_owner=None,
            lease_expires=None,
            lease_epoch=launches.c.lease_epoch + 1,
            updated_at=now(),
        )
    )


def anything_sent(conn: Connection, key: str) -> bool:
    """Whether any transaction of any attempt of the launch was sent (one the
    node refused counts)."""
    rows = conn.execute(select(attempts.c.sends).where(attempts.c.key == key)).all()
    return any(any(s.get("sent") for s in (row.sends or [])) for row in rows)


def anything_landed(conn: Connection, key: str) -> bool:
    """Whether any transaction of any attempt was seen landed (a send keeps its landing,
    `level`, only when it landed without error). A send the node refused was sent, and
    cannot land: refused, it was never forwarded."""
    rows = conn.execute(select(attempts.c.sends).where(attempts.c.key == key)).all()
    return any(any("level" in s for s in (row.sends or [])) for row in rows)


def replaceable(conn: Connection, key: str, state: LaunchState) -> bool:
    """Whether `--replace` may record a changed config over the launch: nothing of it was
    sent, or it failed with nothing landed (its sends, if any, were refused)."""
    if state is LaunchState.FAILED:
        return not anything_landed(conn, key)
    if state is LaunchState.REFUSED:
        return True  # nothing of it was ever signed
    return state in BEFORE_SENDING and not anything_sent(conn, key)


def encoded(signed: Sequence[bytes]) -> list[str]:
    """Signed transactions as base64 text, as the journal keeps them."""
    return [base64.b64encode(t).decode() for t in signed]


def sends_json(sends: Sequence[Send]) -> list[dict[str, Any]]:
    """Sends as the journal keeps them, in JSON."""
    return [s.to_json() for s in sends]


def attempt_of(row: Any) -> Attempt:
    """A create attempt's row as an `Attempt`."""
    return Attempt(
        number=row.number,
        created=Created.from_json(row.created),
        signed=tuple(base64.b64decode(t) for t in row.signed) if row.signed else None,
        sends=tuple(Send.from_json(s) for s in row.sends) if row.sends else None,
        outcome=Outcome(row.outcome) if row.outcome else None,
        spent=Spent.from_json(row.spent) if getattr(row, "spent", None) else None,
    )


def record_of(row: Any, attempt_rows: list[Any]) -> LaunchRecord:
    """A launch row and its attempt rows as a `LaunchRecord`; `current` is the attempt it
    is at (None before the first)."""
    converted = [attempt_of(a) for a in attempt_rows]
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
        registered=(
            Registered.from_json(row.result) if row.result and row.kind == Kind.LAUNCH else None
        ),
        last_error=row.last_error,
        error_details=row.error_details,
        created_at=utc(row.created_at) or row.created_at,
        updated_at=utc(row.updated_at) or row.updated_at,
        lease_owner=row.lease_owner,
        lease_expires=utc(row.lease_expires),
        lease_epoch=row.lease_epoch or 0,
        current=current,
        attempts=converted,
        result=row.result,
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
