"""The journal: every launch's state and every step's output, written before the next side
effect. Each write is one database transaction that records an outcome together with the
state it leads to (a recovery point), so a resumed run always knows what has happened.

SQLite (a file under the profile's folder) by default; any SQLAlchemy URL otherwise, e.g.
`postgresql://user@host/db` when several workers share a batch. No secret is stored here.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from launchops.api.errors import LaunchOpsError
from launchops.journal.tables import AttemptRow, Base, EventRow, LaunchRow

UNSENT_STATES = frozenset({"validated", "created", "signed", "failed"})


class JournalError(LaunchOpsError):
    """The journal refuses an operation (for example, a changed config under a key)."""


def now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime | None) -> datetime | None:
    # SQLite hands back naive datetimes; everything here is UTC.
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


@dataclass(frozen=True)
class Attempt:
    """One create: its transactions as answered, as signed, and what became of each."""

    number: int
    transactions: list[bytes]
    blockhash: str
    last_valid_block_height: int
    mint: str
    genesis: str
    signed: list[bytes] | None = None
    signatures: list[str] | None = None
    sends: list[dict[str, Any]] | None = None
    outcome: str | None = None

    @classmethod
    def from_row(cls, row: AttemptRow) -> Attempt:
        created = row.created
        return cls(
            number=row.number,
            transactions=[base64.b64decode(t) for t in created["transactions"]],
            blockhash=created["blockhash"],
            last_valid_block_height=created["lastValidBlockHeight"],
            mint=created["mintAddress"],
            genesis=created["genesisAccount"],
            signed=[base64.b64decode(t) for t in row.signed] if row.signed else None,
            signatures=list(row.signatures) if row.signatures else None,
            sends=[dict(s) for s in row.sends] if row.sends else None,
            outcome=row.outcome,
        )


@dataclass(frozen=True)
class LaunchRecord:
    key: str
    kind: str
    state: str
    config: dict[str, Any]
    config_hash: str
    network: str
    source: str | None
    attempt: int
    mint: str | None
    genesis: str | None
    result: dict[str, Any] | None
    last_error: str | None
    error_details: list[Any] | None
    created_at: datetime
    updated_at: datetime
    lease_owner: str | None = None
    lease_expires: datetime | None = None
    current: Attempt | None = None
    attempts: list[Attempt] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """What `launchops status --json` shows: no transaction bytes, no secrets."""
        return {
            "key": self.key,
            "kind": self.kind,
            "state": self.state,
            "network": self.network,
            "source": self.source,
            "attempts": self.attempt,
            "mint": self.mint,
            "genesisAccount": self.genesis,
            "result": self.result,
            "lastError": self.last_error,
            "errorDetails": self.error_details,
            "signatures": self.current.signatures if self.current else None,
            "createdAt": self.created_at.isoformat(),
            "updatedAt": self.updated_at.isoformat(),
        }


def async_url(url: str) -> str:
    """A SQLAlchemy URL with the async driver launchops uses for its dialect."""
    parsed = make_url(url)
    drivers = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+psycopg"}
    if parsed.drivername in drivers:
        parsed = parsed.set(drivername=drivers[parsed.drivername])
    return parsed.render_as_string(hide_password=False)


class Journal:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        # SQLite takes one writer at a time: writers of this process queue here instead of
        # sleeping in SQLite's busy handler; readers go on in parallel (WAL).
        self._writer = asyncio.Lock() if engine.dialect.name == "sqlite" else None

    def session(self) -> Any:
        return self._sessions()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[Any]:
        async with self._writer or nullcontext(), self._sessions.begin() as session:
            yield session

    @classmethod
    async def open(cls, url: str) -> Journal:
        target = make_url(url)
        if target.drivername.startswith("sqlite") and target.database not in (None, "", ":memory:"):
            Path(target.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        sqlite = target.drivername.startswith("sqlite")
        engine = create_async_engine(
            async_url(url), pool_pre_ping=True, pool_size=10, max_overflow=20
        )
        if sqlite:
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        async with engine.begin() as connection:
            if target.drivername.startswith("postgresql"):
                # Workers starting together would race CREATE TABLE; one at a time.
                await connection.execute(text("select pg_advisory_xact_lock(8004202611)"))
            await connection.run_sync(Base.metadata.create_all)
        return cls(engine)

    async def close(self) -> None:
        await self.engine.dispose()

    # ── reading ─────────────────────────────────────────────────────────────

    async def get(self, key: str) -> LaunchRecord | None:
        async with self.session() as session:
            row = await session.get(LaunchRow, key)
            if row is None:
                return None
            attempts = (
                await session.scalars(
                    select(AttemptRow).where(AttemptRow.key == key).order_by(AttemptRow.number)
                )
            ).all()
            return _record(row, list(attempts))

    async def all(
        self, *, kind: str | None = None, states: set[str] | None = None
    ) -> list[LaunchRecord]:
        async with self.session() as session:
            query = select(LaunchRow).order_by(LaunchRow.created_at, LaunchRow.key)
            if kind:
                query = query.where(LaunchRow.kind == kind)
            if states:
                query = query.where(LaunchRow.state.in_(states))
            rows = (await session.scalars(query)).all()
            return [_record(row, []) for row in rows]

    async def events(self, key: str) -> list[tuple[datetime, str, str]]:
        async with self.session() as session:
            rows = await session.scalars(
                select(EventRow).where(EventRow.key == key).order_by(EventRow.id)
            )
            return [(_utc(r.at) or r.at, r.step, r.message) for r in rows]

    # ── writing: each call is one transaction, outcome and state together ───

    async def begin(
        self,
        key: str,
        *,
        config: dict[str, Any],
        config_hash: str,
        network: str,
        source: str | None,
        kind: str = "launch",
        replace: bool = False,
    ) -> LaunchRecord:
        """Record a launch (state `validated`), or return the one already under `key`.

        A different config under an existing key is refused, unless nothing of it was
        ever sent and `replace` is given. Two workers recording the same new launch at
        once: one inserts, the other finds it.
        """
        arguments = {
            "config": config,
            "config_hash": config_hash,
            "network": network,
            "source": source,
            "kind": kind,
            "replace": replace,
        }
        try:
            return await self._begin_once(key, **arguments)
        except IntegrityError:
            return await self._begin_once(key, **arguments)

    async def _begin_once(
        self,
        key: str,
        *,
        config: dict[str, Any],
        config_hash: str,
        network: str,
        source: str | None,
        kind: str = "launch",
        replace: bool = False,
    ) -> LaunchRecord:
        """Record a launch (state `validated`), or return the one already under `key`.

        A different config under an existing key is refused, unless nothing of it was
        ever sent and `replace` is given.
        """
        async with self._write() as session:
            row = await session.get(LaunchRow, key, with_for_update=True)
            stamp = now()
            if row is None:
                session.add(
                    LaunchRow(
                        key=key,
                        kind=kind,
                        config_hash=config_hash,
                        config=config,
                        network=network,
                        source=source,
                        state="validated",
                        attempt=0,
                        created_at=stamp,
                        updated_at=stamp,
                    )
                )
                session.add(
                    EventRow(key=key, at=stamp, step="validate", message=f"recorded from {source}")
                )
            elif row.config_hash != config_hash:
                if not (
                    replace
                    and row.state in UNSENT_STATES
                    and not await _anything_sent(session, key)
                ):
                    raise JournalError(
                        f"launch {key!r} is already in the journal with a different configuration "
                        f"(state {row.state}). Give the changed launch a new id:, or, if nothing "
                        f"of it was sent yet, run again with --replace."
                    )
                row.config, row.config_hash, row.state, row.updated_at = (
                    config,
                    config_hash,
                    "validated",
                    stamp,
                )
                row.attempt, row.mint, row.genesis, row.last_error = 0, None, None, None
                session.add(EventRow(key=key, at=stamp, step="validate", message="config replaced"))
        record = await self.get(key)
        assert record is not None
        return record

    async def record_created(self, key: str, number: int, created: dict[str, Any]) -> None:
        async with self._write() as session:
            stamp = now()
            session.add(
                AttemptRow(
                    key=key, number=number, created=created, created_at=stamp, updated_at=stamp
                )
            )
            await _set(
                session,
                key,
                state="created",
                attempt=number,
                mint=created["mintAddress"],
                genesis=created["genesisAccount"],
                last_error=None,
                error_details=None,
            )
            session.add(
                EventRow(
                    key=key,
                    at=stamp,
                    step="create",
                    message=f"attempt {number}: {len(created['transactions'])} transactions"
                    + (f", mint {created['mintAddress']}" if created.get("mintAddress") else ""),
                )
            )

    async def record_signed(
        self, key: str, number: int, signed: list[bytes], signatures: list[str]
    ) -> None:
        async with self._write() as session:
            await _set_attempt(
                session,
                key,
                number,
                signed=[base64.b64encode(t).decode() for t in signed],
                signatures=signatures,
                sends=[{"signature": s, "sent": 0} for s in signatures],
            )
            await _set(session, key, state="signed")
            session.add(
                EventRow(key=key, at=now(), step="sign", message=f"{len(signatures)} signed")
            )

    async def record_sends(
        self,
        key: str,
        number: int,
        sends: list[dict[str, Any]],
        *,
        state: str | None = None,
        signed: list[bytes] | None = None,
        signatures: list[str] | None = None,
        note: str | None = None,
    ) -> None:
        """What became of each transaction (sent, landed slot, error); optionally re-signed ones."""
        async with self._write() as session:
            changes: dict[str, Any] = {"sends": sends}
            if signed is not None:
                changes["signed"] = [base64.b64encode(t).decode() for t in signed]
            if signatures is not None:
                changes["signatures"] = signatures
            await _set_attempt(session, key, number, **changes)
            if state is not None:
                await _set(session, key, state=state)
            if note:
                session.add(EventRow(key=key, at=now(), step="submit", message=note))

    async def record_outcome(
        self,
        key: str,
        number: int,
        outcome: str,
        *,
        state: str,
        error: str | None = None,
        details: list[Any] | None = None,
    ) -> None:
        async with self._write() as session:
            await _set_attempt(session, key, number, outcome=outcome)
            await _set(session, key, state=state, last_error=error, error_details=details)
            session.add(
                EventRow(key=key, at=now(), step="submit", message=f"attempt {number}: {outcome}")
            )

    async def set_state(
        self,
        key: str,
        state: str,
        *,
        step: str,
        message: str,
        error: str | None = None,
        details: list[Any] | None = None,
    ) -> None:
        async with self._write() as session:
            await _set(session, key, state=state, last_error=error, error_details=details)
            session.add(EventRow(key=key, at=now(), step=step, message=message))

    async def record_registered(self, key: str, result: dict[str, Any]) -> None:
        async with self._write() as session:
            await _set(
                session, key, state="registered", result=result, last_error=None, error_details=None
            )
            link = result.get("launch", {}).get("link")
            session.add(EventRow(key=key, at=now(), step="register", message=f"registered: {link}"))

    async def note(self, key: str, step: str, message: str) -> None:
        async with self._write() as session:
            session.add(EventRow(key=key, at=now(), step=step, message=message))

    # ── leases: one worker per launch at a time ─────────────────────────────

    async def acquire(self, key: str, owner: str, ttl: float) -> bool:
        """Take the launch's lease if it is free, expired or already ours (atomic)."""
        stamp = now()
        async with self._write() as session:
            result = await session.execute(
                update(LaunchRow)
                .where(LaunchRow.key == key)
                .where(
                    (LaunchRow.lease_owner.is_(None))
                    | (LaunchRow.lease_expires < stamp)
                    | (LaunchRow.lease_owner == owner)
                )
                .values(lease_owner=owner, lease_expires=stamp + timedelta(seconds=ttl))
            )
            return result.rowcount == 1

    async def take_over(self, key: str, dead: str, owner: str, ttl: float) -> bool:
        """Take the lease of a worker known to be dead, if it still holds it (atomic)."""
        async with self._write() as session:
            result = await session.execute(
                update(LaunchRow)
                .where(LaunchRow.key == key, LaunchRow.lease_owner == dead)
                .values(lease_owner=owner, lease_expires=now() + timedelta(seconds=ttl))
            )
            if result.rowcount == 1:
                session.add(
                    EventRow(key=key, at=now(), step="lease", message=f"took over from {dead}")
                )
            return result.rowcount == 1

    async def release(self, key: str, owner: str) -> None:
        async with self._write() as session:
            await session.execute(
                update(LaunchRow)
                .where(LaunchRow.key == key, LaunchRow.lease_owner == owner)
                .values(lease_owner=None, lease_expires=None)
            )


def _sqlite_pragmas(connection: Any, _: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("pragma journal_mode=wal")
    cursor.execute("pragma busy_timeout=30000")
    cursor.execute("pragma synchronous=normal")
    cursor.close()


async def _set(session: Any, key: str, **values: Any) -> None:
    """One UPDATE of the launch row (no read first: the lease makes us its only writer)."""
    result = await session.execute(
        update(LaunchRow).where(LaunchRow.key == key).values(**values, updated_at=now())
    )
    assert result.rowcount == 1, key


async def _set_attempt(session: Any, key: str, number: int, **values: Any) -> None:
    result = await session.execute(
        update(AttemptRow)
        .where(AttemptRow.key == key, AttemptRow.number == number)
        .values(**values, updated_at=now())
    )
    assert result.rowcount == 1, (key, number)


async def _anything_sent(session: Any, key: str) -> bool:
    rows = (await session.scalars(select(AttemptRow).where(AttemptRow.key == key))).all()
    return any(any(s.get("sent") for s in (row.sends or [])) for row in rows)


def _record(row: LaunchRow, attempts: list[AttemptRow]) -> LaunchRecord:
    converted = [Attempt.from_row(a) for a in attempts]
    current = next((a for a in converted if a.number == row.attempt), None)
    return LaunchRecord(
        key=row.key,
        kind=row.kind,
        state=row.state,
        config=row.config,
        config_hash=row.config_hash,
        network=row.network,
        source=row.source,
        attempt=row.attempt,
        mint=row.mint,
        genesis=row.genesis,
        result=row.result,
        last_error=row.last_error,
        error_details=row.error_details,
        created_at=_utc(row.created_at) or row.created_at,
        updated_at=_utc(row.updated_at) or row.updated_at,
        lease_owner=row.lease_owner,
        lease_expires=_utc(row.lease_expires),
        current=current,
        attempts=converted,
    )
