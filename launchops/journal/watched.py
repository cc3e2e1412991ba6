"""The last status the service gave each registered launch (upcoming, live, graduated,
ended), and the last one announced: what the launch watch keeps so that each change is
emitted once. A table of its own beside the journal's (`launch_statuses`), made with
them."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column, DateTime, String, Table, insert, select, update

from launchops.journal.rows import now
from launchops.journal.store import Journal
from launchops.journal.tables import metadata

SETTLED = frozenset({"graduated", "ended"})  # a launch is watched until one of these

W = Table(
    "launch_statuses",
    metadata,
    Column("key", String(80), primary_key=True),
    Column("genesis", String(64), nullable=False),
    Column("network", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("announced", String(16), nullable=True),
    Column("seen_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class Watched:
    """What the launch watch keeps of a registered launch: the last status the service
    gave and the last one announced; `settled` once a final status was announced."""

    key: str
    genesis: str
    network: str
    status: str
    announced: str | None

    @property
    def settled(self) -> bool:
        return self.status in SETTLED and self.announced == self.status


async def watched(journal: Journal) -> dict[str, Watched]:
    """Every launch the watch keeps, by key (its table made first if the journal predates it)."""

    def read() -> dict[str, Watched]:
        W.create(journal.engine, checkfirst=True)  # a journal made before the watch
        with journal.engine.connect() as conn:
            return {
                r.key: Watched(r.key, r.genesis, r.network, r.status, r.announced)
                for r in conn.execute(select(W))
            }

    return await journal._run(read)


async def saw(journal: Journal, key: str, genesis: str, network: str, status: str) -> None:
    """Keep `status` as the last one the service gave the launch."""

    def write() -> None:
        with journal.engine.begin() as conn:
            values = {"genesis": genesis, "network": network, "status": status, "seen_at": now()}
            changed = conn.execute(update(W).where(W.c.key == key).values(**values))
            if changed.rowcount == 0:
                conn.execute(insert(W).values(key=key, announced=None, **values))

    await journal._run(write)


async def announced(journal: Journal, key: str, status: str) -> None:
    """The change to `status` was emitted: never again."""

    def write() -> None:
        with journal.engine.begin() as conn:
            conn.execute(update(W).where(W.c.key == key).values(announced=status))

    await journal._run(write)


__all__ = ["SETTLED", "Watched", "announced", "saw", "watched"]
