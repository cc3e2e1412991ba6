"""The journal: every launch's state and every step's output, written before the next side
effect. Each write is one database transaction that records an outcome together with the
state it leads to (a recovery point), so a resumed run always knows what has happened.

SQLite (a file under the profile's folder) by default; any SQLAlchemy URL otherwise, e.g.
`postgresql://user@host/db` when several workers share a batch. No secret is stored here.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, insert, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError

from launchops.errors import JournalError, JournalUnavailable
from launchops.journal.records import (
    Attempt,
    Created,
    LaunchRecord,
    Registered,
    Send,
)
from launchops.journal.tables import AttemptRow, Base, EventRow, LaunchRow
from launchops.states import BEFORE_SENDING, Kind, LaunchState, Outcome, Step

T = TypeVar("T")
S = LaunchState


def now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime | None) -> datetime | None:
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
POOL_THREADS = 8


class Journal:
    """Async to its callers; inside, plain SQLAlchemy Core on a synchronous engine, each
    call one hop to the journal's own threads (one thread for SQLite, which takes one
    writer at a time; a small pool for PostgreSQL). That is ~5x less CPU a call than the
    async engine's statement-by-statement hops, which a batch of hundreds notices.
    """

    def __init__(self, engine: Engine, threads: int) -> None:
        self.engine = engine
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="launchops-journal")

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, partial(fn, *args, **kwargs))
        except (OperationalError, InterfaceError) as exc:
            raise JournalUnavailable(f"the journal's database failed: {exc.orig}") from exc

    @classmethod
    async def open(cls, url: str) -> Journal:
        target = make_url(url)
        sqlite = target.drivername.startswith("sqlite")
        if sqlite and target.database not in (None, "", ":memory:"):
            Path(target.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        if sqlite:
            engine = create_engine(sync_url(url))
            event.listen(engine, "connect", _sqlite_pragmas)
        else:
            engine = create_engine(
                sync_url(url), pool_pre_ping=True, pool_size=POOL_THREADS, max_overflow=0
            )
        journal = cls(engine, 1 if sqlite else POOL_THREADS)
        try:
            await journal._run(_create_tables, engine)
        except BaseException:
            await journal.close()
            raise
        return journal

    async def close(self) -> None:
        await self._run(self.engine.dispose)
        self._executor.shutdown(wait=True)

    # ── reading ─────────────────────────────────────────────────────────────

    async def get(self, key: str) -> LaunchRecord | None:
        return await self._run(self._get, key)

    def _get(self, key: str) -> LaunchRecord | None:
        with self.engine.connect() as conn:
            return _read(conn, key)

    async def all(
        self, *, kind: Kind | None = None, states: Sequence[LaunchState] | None = None
    ) -> list[LaunchRecord]:
        query = select(L).order_by(L.c.created_at, L.c.key)
        if kind:
            query = query.where(L.c.kind == str(kind))
        if states:
            query = query.where(L.c.state.in_([str(s) for s in states]))

        def read() -> list[LaunchRecord]:
            with self.engine.connect() as conn:
                return [_record(row, []) for row in conn.execute(query)]

        return await self._run(read)

    async def events(self, key: str) -> list[tuple[datetime, str, str]]:
        def read() -> list[tuple[datetime, str, str]]:
            with self.engine.connect() as conn:
                rows = conn.execute(select(E).where(E.c.key == key).order_by(E.c.id))
                return [(_utc(r.at) or r.at, r.step, r.message) for r in rows]

        return await self._run(read)

    # ── writing: each call is one transaction, outcome and state together ───

    async def begin(
        self,
        key: str,
        *,
        config: dict[str, Any],
        config_hash: str,
        network: str,
        source: str | None,
        kind: Kind = Kind.LAUNCH,
        replace: bool = False,
    ) -> LaunchRecord:
        """Record a launch (state `validated`), or return the one already under `key`.

        A different config under an existing key is refused, unless nothing of it was
        ever sent and `replace` is given. Two workers recording the same new launch at
        once: one inserts, the other finds it.
        """
        new = _New(key, config, config_hash, network, source, kind, replace)
        try:
            return await self._run(self._begin_once, new)
        except IntegrityError:
            return await self._run(self._begin_once, new)

    def _begin_once(self, new: _New) -> LaunchRecord:
        with self.engine.begin() as conn:
            row = conn.execute(select(L).where(L.c.key == new.key).with_for_update()).first()
            stamp = now()
            fresh = {
                "config": new.config,
                "config_hash": new.config_hash,
                "state": str(S.VALIDATED),
                "attempt": 0,
            }
            if row is None:
                conn.execute(
                    insert(L).values(
                        key=new.key,
                        kind=str(new.kind),
                        network=new.network,
                        source=new.source,
                        created_at=stamp,
                        updated_at=stamp,
                        **fresh,
                    )
                )
                _event(conn, new.key, Step.VALIDATE, f"recorded from {new.source}", stamp)
            elif row.config_hash != new.config_hash:
                sent = _anything_sent(conn, new.key)
                if not (new.replace and S(row.state) in BEFORE_SENDING and not sent):
                    raise JournalError(
                        f"launch {new.key!r} is already in the journal with a different "
                        f"configuration (state {row.state}). Give the changed launch a new "
                        f"id:, or, if nothing of it was sent yet, run again with --replace."
                    )
                _set(conn, new.key, mint=None, genesis=None, last_error=None, **fresh)
                _event(conn, new.key, Step.VALIDATE, "config replaced", stamp)
            record = _read(conn, new.key)
        assert record is not None
        return record

    async def record_created(self, key: str, number: int, created: Created) -> None:
        def write() -> None:
            with self.engine.begin() as conn:
                stamp = now()
                conn.execute(
                    insert(A).values(
                        key=key,
                        number=number,
                        created=created.to_json(),
                        created_at=stamp,
                        updated_at=stamp,
                    )
                )
                mint = str(created.mint) if created.mint else None
                _set(
                    conn,
                    key,
                    state=str(S.CREATED),
                    attempt=number,
                    mint=mint,
                    genesis=str(created.genesis) if created.genesis else None,
                    last_error=None,
                    error_details=None,
                )
                made = f"attempt {number}: {len(created.transactions)} transactions"
                _event(conn, key, Step.CREATE, made + (f", mint {mint}" if mint else ""))

        await self._run(write)

    async def record_signed(
        self, key: str, number: int, signed: Sequence[bytes], sends: Sequence[Send]
    ) -> None:
        def write() -> None:
            with self.engine.begin() as conn:
                _set_attempt(conn, key, number, signed=_encoded(signed), sends=_sends(sends))
                _set(conn, key, state=str(S.SIGNED))
                _event(conn, key, Step.SIGN, f"{len(sends)} signed")

        await self._run(write)

    async def record_sends(
        self,
        key: str,
        number: int,
        sends: Sequence[Send],
        *,
        state: LaunchState | None = None,
        signed: Sequence[bytes] | None = None,
        note: str | None = None,
    ) -> None:
        """What became of each transaction (sent, landed); optionally re-signed ones."""
        changes: dict[str, Any] = {"sends": _sends(sends)}
        if signed is not None:
            changes["signed"] = _encoded(signed)

        def write() -> None:
            with self.engine.begin() as conn:
                _set_attempt(conn, key, number, **changes)
                if state is not None:
                    _set(conn, key, state=str(state))
                if note:
                    _event(conn, key, Step.SUBMIT, note)

        await self._run(write)

    async def record_outcome(
        self,
        key: str,
        number: int,
        outcome: Outcome,
        *,
        state: LaunchState,
        error: str | None = None,
        details: list[Any] | None = None,
    ) -> None:
        def write() -> None:
            with self.engine.begin() as conn:
                _set_attempt(conn, key, number, outcome=str(outcome))
                _set(conn, key, state=str(state), last_error=error, error_details=details)
                _event(conn, key, Step.SUBMIT, f"attempt {number}: {outcome}")

        await self._run(write)

    async def set_state(
        self,
        key: str,
        state: LaunchState,
        *,
        step: Step,
        message: str,
        error: str | None = None,
        details: list[Any] | None = None,
    ) -> None:
        def write() -> None:
            with self.engine.begin() as conn:
                _set(conn, key, state=str(state), last_error=error, error_details=details)
                _event(conn, key, step, message)

        await self._run(write)

    async def record_registered(self, key: str, registered: Registered) -> None:
        def write() -> None:
            with self.engine.begin() as conn:
                _set(
                    conn,
                    key,
                    state=str(S.REGISTERED),
                    result=registered.to_json(),
                    last_error=None,
                    error_details=None,
                )
                _event(conn, key, Step.REGISTER, f"registered: {registered.link}")

        await self._run(write)

    # ── leases: one worker per launch at a time ─────────────────────────────

    async def acquire(self, key: str, owner: str, ttl: float) -> bool:
        """Take the launch's lease if it is free, expired or already ours (atomic)."""

        def write() -> bool:
            stamp = now()
            with self.engine.begin() as conn:
                result = conn.execute(
                    update(L)
                    .where(L.c.key == key)
                    .where(
                        (L.c.lease_owner.is_(None))
                        | (L.c.lease_expires < stamp)
                        | (L.c.lease_owner == owner)
                    )
                    .values(lease_owner=owner, lease_expires=stamp + timedelta(seconds=ttl))
                )
                return result.rowcount == 1

        return await self._run(write)

    async def take_over(self, key: str, dead: str, owner: str, ttl: float) -> bool:
        """Take the lease of a worker known to be dead, if it still holds it (atomic)."""

        def write() -> bool:
            with self.engine.begin() as conn:
                result = conn.execute(
                    update(L)
                    .where(L.c.key == key, L.c.lease_owner == dead)
                    .values(lease_owner=owner, lease_expires=now() + timedelta(seconds=ttl))
                )
                if result.rowcount == 1:
                    _event(conn, key, "lease", f"took over from {dead}")
                return result.rowcount == 1

        return await self._run(write)

    async def release(self, key: str, owner: str) -> None:
        def write() -> None:
            with self.engine.begin() as conn:
                conn.execute(
                    update(L)
                    .where(L.c.key == key, L.c.lease_owner == owner)
                    .values(lease_owner=None, lease_expires=None)
                )

        await self._run(write)


def _create_tables(engine: Engine) -> None:
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            # Workers starting together would race CREATE TABLE; one at a time.
            conn.execute(text("select pg_advisory_xact_lock(8004202611)"))
        Base.metadata.create_all(conn)


def _read(conn: Connection, key: str) -> LaunchRecord | None:
    row = conn.execute(select(L).where(L.c.key == key)).first()
    if row is None:
        return None
    attempts = conn.execute(select(A).where(A.c.key == key).order_by(A.c.number)).all()
    return _record(row, list(attempts))


def _event(conn: Connection, key: str, step: str, message: str, at: datetime | None = None) -> None:
    conn.execute(insert(E).values(key=key, at=at or now(), step=str(step), message=message))


def _sqlite_pragmas(connection: Any, _: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("pragma journal_mode=wal")
    cursor.execute("pragma busy_timeout=30000")
    cursor.execute("pragma synchronous=normal")
    cursor.close()


def _set(conn: Connection, key: str, **values: Any) -> None:
    """One UPDATE of the launch row (no read first: the lease makes us its only writer)."""
    result = conn.execute(update(L).where(L.c.key == key).values(**values, updated_at=now()))
    assert result.rowcount == 1, key


def _set_attempt(conn: Connection, key: str, number: int, **values: Any) -> None:
    result = conn.execute(
        update(A).where(A.c.key == key, A.c.number == number).values(**values, updated_at=now())
    )
    assert result.rowcount == 1, (key, number)


def _anything_sent(conn: Connection, key: str) -> bool:
    rows = conn.execute(select(A.c.sends).where(A.c.key == key)).all()
    return any(any(s.get("sent") for s in (row.sends or [])) for row in rows)


def _encoded(signed: Sequence[bytes]) -> list[str]:
    return [base64.b64encode(t).decode() for t in signed]


def _sends(sends: Sequence[Send]) -> list[dict[str, Any]]:
    return [s.to_json() for s in sends]


def _attempt(row: Any) -> Attempt:
    return Attempt(
        number=row.number,
        created=Created.from_json(row.created),
        signed=tuple(base64.b64decode(t) for t in row.signed) if row.signed else None,
        sends=tuple(Send.from_json(s) for s in row.sends) if row.sends else None,
        outcome=Outcome(row.outcome) if row.outcome else None,
    )


def _record(row: Any, attempts: list[Any]) -> LaunchRecord:
    converted = [_attempt(a) for a in attempts]
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
        created_at=_utc(row.created_at) or row.created_at,
        updated_at=_utc(row.updated_at) or row.updated_at,
        lease_owner=row.lease_owner,
        lease_expires=_utc(row.lease_expires),
        current=current,
        attempts=converted,
    )


@dataclass(frozen=True)
class _New:
    """A launch to record, as `begin` was asked."""

    key: str
    config: dict[str, Any]
    config_hash: str
    network: str
    source: str | None
    kind: Kind
    replace: bool
