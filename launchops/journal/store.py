"""The journal: every launch's state and every step's output, written before the next side
effect. Each write is one database transaction that records an outcome together with the
state it leads to (a recovery point), so a resumed run always knows what has happened.

SQLite (a file under the profile's folder) by default; any SQLAlchemy URL otherwise, e.g.
`postgresql://user@host/db` when several workers share a batch. No secret is stored here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event, insert, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError

from launchops.errors import ConfigChanged, JournalError, JournalUnavailable, LeaseLost
from launchops.journal.claims import Claims
from launchops.journal.leases import Leases
from launchops.journal.records import (
    LaunchRecord,
    Lease,
    StateChange,
)
from launchops.journal.rows import (
    Held,
    NewLaunch,
    add_event,
    create_tables,
    now,
    read_record,
    record_of,
    replaceable,
    reset_launch,
    sqlite_pragmas,
    sync_url,
    utc,
)
from launchops.journal.tables import attempts as attempts_table
from launchops.journal.tables import events, launches
from launchops.journal.writes import Writes
from launchops.states import Kind, LaunchState, Step

T = TypeVar("T")
S = LaunchState
log = logging.getLogger(__name__)
# What SQLite says of a file that is not a database, or no longer a whole one.
CORRUPT = ("file is not a database", "database disk image is malformed")


POOL_THREADS = 8


class Journal(Writes, Leases, Claims):
    """Async to its callers; inside, plain SQLAlchemy Core on a synchronous engine, each
    call one hop to the journal's own threads (one thread for SQLite, which takes one
    writer at a time; a small pool for PostgreSQL). That is ~5x less CPU a call than the
    async engine's statement-by-statement hops, which a batch of hundreds notices.

    One worker's handle: `held` has the lease it holds on each launch it works (its
    context puts them there), and every write a step makes goes under that lease, fenced
    (`rows.Held`): without one, or once another worker took it, the write is refused
    with `LeaseLost` and changes nothing.
    """

    def __init__(self, engine: Engine, threads: int) -> None:
        self.engine = engine
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix="launchops-journal")
        self._watchers: list[Callable[[StateChange], None]] = []
        self.held: dict[str, Lease] = {}

    def watch(self, watcher: Callable[[StateChange], None]) -> None:
        """Call `watcher` with every state change this journal commits (e.g. to emit events)."""
        self._watchers.append(watcher)

    async def _write(self, key: str, fn: Callable[[Held], StateChange | None]) -> None:
        """Run one write transaction on the launch under the lease held on it (fenced);
        tell the watchers the state it committed, if any."""
        lease = self.held.get(key)
        if lease is None:
            raise LeaseLost(key)

        def write() -> StateChange | None:
            with self.engine.begin() as conn:
                return fn(Held.take(conn, lease))

        try:
            change = await self._run(write)
        except LeaseLost:
            if self.held.get(key) == lease:
                del self.held[key]
            raise
        if change is not None:
            for watcher in self._watchers:
                watcher(change)

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn` in the journal's threads; a database error becomes a sentence (its text,
        which may quote SQL, goes to the debug log only)."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor, partial(fn, *args, **kwargs))
        except (OperationalError, InterfaceError) as exc:
            log.debug("journal database error", exc_info=exc)
            raise JournalUnavailable(
                f"the journal's database did not answer ({type(exc.orig).__name__}); "
                "try again when it is back"
            ) from None
        except IntegrityError as exc:
            log.debug("journal integrity error", exc_info=exc)
            raise JournalError(
                "the journal refused a write that conflicts with what it holds (another "
                "worker wrote it first); nothing of it was kept"
            ) from None
        except DBAPIError as exc:
            log.debug("journal database error", exc_info=exc)
            raise JournalError(self._refused(exc)) from None

    def _refused(self, exc: DBAPIError) -> str:
        """The sentence for a statement the database refused: a SQLite file that is not a
        journal any more is named, and not replaced (an empty journal would not know what
        was launched)."""
        found = str(exc.orig)
        url = self.engine.url
        if url.drivername.startswith("sqlite") and any(c in found for c in CORRUPT):
            return (
                f"the journal {url.database} cannot be read: {found}; restore it from a "
                "backup (a new, empty journal would not know what was launched)"
            )
        return f"the journal's database refused a statement ({type(exc.orig).__name__})"

    @classmethod
    async def open(cls, url: str) -> Journal:
        target = make_url(url)
        sqlite = target.drivername.startswith("sqlite")
        if sqlite and target.database not in (None, "", ":memory:"):
            Path(target.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        if sqlite:
            engine = create_engine(sync_url(url))
            event.listen(engine, "connect", sqlite_pragmas)
        else:
            engine = create_engine(
                sync_url(url), pool_pre_ping=True, pool_size=POOL_THREADS, max_overflow=0
            )
        journal = cls(engine, 1 if sqlite else POOL_THREADS)
        try:
            await journal._run(create_tables, engine)
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
            return read_record(conn, key)

    async def all(
        self,
        *,
        kind: Kind | None = None,
        states: Sequence[LaunchState] | None = None,
        attempts: bool = False,
    ) -> list[LaunchRecord]:
        """Every launch (of `kind`, in `states`); with `attempts`, each with its attempts
        (what `status` totals spending from), read in one more query."""
        query = select(launches).order_by(launches.c.created_at, launches.c.key)
        if kind:
            query = query.where(launches.c.kind == str(kind))
        if states:
            query = query.where(launches.c.state.in_([str(s) for s in states]))

        def read() -> list[LaunchRecord]:
            with self.engine.connect() as conn:
                tried: dict[str, list[Any]] = {}
                if attempts:
                    for row in conn.execute(select(attempts_table).order_by("number")):
                        tried.setdefault(row.key, []).append(row)
                return [record_of(row, tried.get(row.key, [])) for row in conn.execute(query)]

        return await self._run(read)

    async def events(self, key: str) -> list[tuple[datetime, str, str]]:
        def read() -> list[tuple[datetime, str, str]]:
            with self.engine.connect() as conn:
                rows = conn.execute(select(events).where(events.c.key == key).order_by(events.c.id))
                return [(utc(r.at) or r.at, r.step, r.message) for r in rows]

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
        new = NewLaunch(key, config, config_hash, network, source, kind, replace)
        record, recorded = await self._run(self._begin_twice, new)
        if recorded:
            change = StateChange(key, record.kind, record.state, network, None, None)
            for watcher in self._watchers:
                watcher(change)
        return record

    def _begin_twice(self, new: NewLaunch) -> tuple[LaunchRecord, bool]:
        try:
            return self._begin_once(new)
        except IntegrityError:  # another worker inserted it meanwhile: found this time
            return self._begin_once(new)

    def _begin_once(self, new: NewLaunch) -> tuple[LaunchRecord, bool]:
        with self.engine.begin() as conn:
            row = conn.execute(
                select(launches).where(launches.c.key == new.key).with_for_update()
            ).first()
            stamp = now()
            recorded = row is None or row.config_hash != new.config_hash
            fresh = {
                "config": new.config,
                "config_hash": new.config_hash,
                "state": str(S.VALIDATED),
                "attempt": 0,
            }
            if row is None:
                conn.execute(
                    insert(launches).values(
                        key=new.key,
                        kind=str(new.kind),
                        network=new.network,
                        source=new.source,
                        created_at=stamp,
                        updated_at=stamp,
                        **fresh,
                    )
                )
                add_event(conn, new.key, Step.VALIDATE, f"recorded from {new.source}", stamp)
            elif row.config_hash != new.config_hash:
                if not (new.replace and replaceable(conn, new.key, S(row.state))):
                    raise ConfigChanged(_changed(new.key, S(row.state), new.replace))
                # Attempt numbers go on: the earlier attempts stay in the journal's story.
                fresh["attempt"] = row.attempt
                reset_launch(
                    conn,
                    new.key,
                    mint=None,
                    genesis=None,
                    last_error=None,
                    error_details=None,
                    **fresh,
                )
                add_event(
                    conn, new.key, Step.VALIDATE, f"config replaced (state was {row.state})", stamp
                )
            record = read_record(conn, new.key)
        assert record is not None
        return record, recorded


def _changed(key: str, state: LaunchState, replace: bool) -> str:
    """Why a changed config under a known key is refused, and what to do instead."""
    finish = f"launchops resume {key} finishes it as it was created"
    if replace:
        return (
            f"launch {key!r} is already in the journal with a different configuration "
            f"(state {state}) and some of it was sent (or landed): --replace cannot take "
            f"it. {finish}; to launch the edited file as a new token, give it a new id:."
        )
    return (
        f"launch {key!r} is already in the journal with a different configuration "
        f"(state {state}): {finish}; to launch the edited file as a new token, give it a "
        "new id: (--replace takes the edit over only while nothing of it was sent, or it "
        "failed with nothing landed)."
    )
