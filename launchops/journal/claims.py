"""Claims: the launches of a batch shared by several workers, taken one at a time by
whichever participant has a free lane (work stealing), not split ahead.

The batch's flow run offers its launches in order (one row each, under the batch's id);
each participant claims the next unclaimed one in one guarded UPDATE (`worker IS NULL` in
its WHERE clause): of two participants that race for the same row, one's UPDATE changes
it and the other's changes nothing and tries the next. The same statements on SQLite
(one writer at a time) and PostgreSQL (the second UPDATE waits for the first to commit,
then finds the row claimed). A claim only says who starts a launch: the launch's lease
still gives it to one worker at a time, and a claimed launch whose worker died is taken
over as any other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select, update

from launchops.journal.rows import now
from launchops.journal.tables import claims


def offer(conn: Connection, batch: str, keys: Sequence[str]) -> None:
    """The batch's launches, in order, once (a batch offered again keeps its claims)."""
    there = conn.execute(select(func.count()).where(claims.c.batch == batch)).scalar_one()
    if there or not keys:
        return
    rows = [{"batch": batch, "position": i, "key": key} for i, key in enumerate(keys)]
    conn.execute(insert(claims), rows)


def claim_next(conn: Connection, batch: str, worker: str) -> str | None:
    """The key of the first launch of the batch nobody claimed, now claimed by `worker`;
    None when every launch is claimed. One statement each way, retried on a lost race."""
    while True:
        first = conn.execute(
            select(claims.c.position, claims.c.key)
            .where(claims.c.batch == batch, claims.c.worker.is_(None))
            .order_by(claims.c.position)
            .limit(1)
        ).first()
        if first is None:
            return None
        taken = conn.execute(
            update(claims)
            .where(
                claims.c.batch == batch,
                claims.c.position == first.position,
                claims.c.worker.is_(None),
            )
            .values(worker=worker, claimed_at=now())
        )
        conn.commit()
        if taken.rowcount == 1:
            return str(first.key)


def offered(conn: Connection, batch: str) -> bool:
    """Whether the batch's launches were offered (any of them)."""
    first = conn.execute(select(claims.c.position).where(claims.c.batch == batch).limit(1))
    return first.first() is not None


def claimed(conn: Connection, batch: str) -> dict[str, str]:
    """Who claimed each claimed launch of the batch."""
    query = select(claims.c.key, claims.c.worker).where(
        claims.c.batch == batch, claims.c.worker.is_not(None)
    )
    return {row.key: row.worker for row in conn.execute(query)}


class Claims:
    """The journal's claim calls (mixed into `Journal`, which runs them in its threads)."""

    engine: Engine
    _run: Callable[..., Any]

    async def offer(self, batch: str, keys: Sequence[str]) -> None:
        """Offer the batch's launches to its participants, in this order (once)."""

        def write() -> None:
            with self.engine.begin() as conn:
                offer(conn, batch, keys)

        await self._run(write)

    async def claim_next(self, batch: str, worker: str) -> str | None:
        """The next launch of the batch for `worker` to start; None: none left."""

        def write() -> str | None:
            with self.engine.connect() as conn:
                return claim_next(conn, batch, worker)

        return await self._run(write)

    async def offered(self, batch: str) -> bool:
        """Whether the batch's flow run offered its launches yet."""

        def read() -> bool:
            with self.engine.connect() as conn:
                return offered(conn, batch)

        return await self._run(read)

    async def claimed(self, batch: str) -> dict[str, str]:
        def read() -> dict[str, str]:
            with self.engine.connect() as conn:
                return claimed(conn, batch)

        return await self._run(read)
