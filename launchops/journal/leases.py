"""Leases: one worker per launch at a time, fenced.

A lease is an owner and an expiry on the launch's row, and a fencing number
(`lease_epoch`) that grows each time a new owner takes it (free, expired, or taken over
from a dead worker; a holder renewing keeps its number). Every write a step makes names
the owner and the number in the same statement (`rows.Held`), so a worker whose lease
lapsed and was taken writes nothing more, however late it wakes up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, select, update

from launchops.journal.records import Lease
from launchops.journal.rows import add_event, held_by, now
from launchops.journal.tables import launches

T = TypeVar("T")
LEASE = "lease"  # the events' step for lease changes


def take(conn: Connection, key: str, owner: str, ttl: float, worker: str) -> Lease | None:
    """The lease if it is ours already (same number), free or expired (the next number)."""
    stamp = now()
    expires = stamp + timedelta(seconds=ttl)
    ours = conn.execute(
        update(launches)
        .where(launches.c.key == key, launches.c.lease_owner == owner)
        .values(lease_expires=expires)
        .returning(launches.c.lease_epoch)
    ).first()
    if ours is not None:
        return Lease(key, owner, ours.lease_epoch)
    free = (launches.c.lease_owner.is_(None)) | (launches.c.lease_expires < stamp)
    named = {"worker": worker} if worker else {}
    taken = conn.execute(
        update(launches)
        .where(launches.c.key == key, free)
        .values(
            lease_owner=owner,
            lease_expires=expires,
            lease_epoch=launches.c.lease_epoch + 1,
            **named,
        )
        .returning(launches.c.lease_epoch)
    ).first()
    if taken is None:
        return None
    if worker:
        add_event(conn, key, LEASE, f"worked by {worker}")
    return Lease(key, owner, taken.lease_epoch)


def take_over(
    conn: Connection, key: str, dead: str, owner: str, ttl: float, worker: str
) -> Lease | None:
    """The lease of a worker known to be dead, if it still holds it (the next number)."""
    taken = conn.execute(
        update(launches)
        .where(launches.c.key == key, launches.c.lease_owner == dead)
        .values(
            lease_owner=owner,
            lease_expires=now() + timedelta(seconds=ttl),
            lease_epoch=launches.c.lease_epoch + 1,
            **({"worker": worker} if worker else {}),
        )
        .returning(launches.c.lease_epoch)
    ).first()
    if taken is None:
        return None
    add_event(conn, key, LEASE, f"worked by {worker} (took over from {dead})")
    return Lease(key, owner, taken.lease_epoch)


def renew(conn: Connection, lease: Lease, ttl: float) -> bool:
    """Extend a lease still held (owner and number): False when another worker took it."""
    result = conn.execute(
        update(launches).where(*held_by(lease)).values(lease_expires=now() + timedelta(seconds=ttl))
    )
    return result.rowcount == 1


def release(conn: Connection, lease: Lease) -> None:
    """Give the lease back if `lease` (owner and fencing number) still holds it;
    else nothing happens."""
    conn.execute(
        update(launches).where(*held_by(lease)).values(lease_owner=None, lease_expires=None)
    )


def last_workers(
    conn: Connection, keys: Sequence[str], since: datetime | None = None
) -> dict[str, str]:
    """Who last took each launch's lease, as `take` wrote it on the launch's row; with
    `since`, only for launches written since then (a launch finished before is left out)."""
    query = select(launches.c.key, launches.c.worker).where(
        launches.c.key.in_(list(keys)), launches.c.worker.is_not(None)
    )
    if since is not None:
        query = query.where(launches.c.updated_at >= since)
    return {row.key: row.worker for row in conn.execute(query)}


class Leases:
    """The journal's lease calls (mixed into `Journal`, which runs them in its threads)."""

    engine: Engine
    _run: Callable[..., Any]

    def _in_transaction(self, fn: Callable[..., T], *args: Any) -> Callable[[], T]:
        def write() -> T:
            with self.engine.begin() as conn:
                return fn(conn, *args)

        return write

    async def acquire(self, key: str, owner: str, ttl: float, worker: str = "") -> Lease | None:
        """Take the launch's lease if it is free, expired or already ours (atomic); a lease
        newly taken names `worker` on the launch (and in its events): who works it from now on."""
        return await self._run(self._in_transaction(take, key, owner, ttl, worker))

    async def take_over(
        self, key: str, dead: str, owner: str, ttl: float, worker: str = ""
    ) -> Lease | None:
        """Take the lease of a worker known to be dead, if it still holds it (atomic)."""
        return await self._run(self._in_transaction(take_over, key, dead, owner, ttl, worker))

    async def renew(self, lease: Lease, ttl: float) -> bool:
        """Extend the lease while its holder still holds it; False once another took it."""
        return await self._run(self._in_transaction(renew, lease, ttl))

    async def release(self, lease: Lease) -> None:
        await self._run(self._in_transaction(release, lease))

    async def workers(self, keys: Sequence[str], since: datetime | None = None) -> dict[str, str]:
        """Who last took each launch's lease (the `worker` given to `acquire`); with
        `since`, of the launches written since then only."""

        def read() -> dict[str, str]:
            with self.engine.connect() as conn:
                return last_workers(conn, keys, since)

        return await self._run(read) if keys else {}
