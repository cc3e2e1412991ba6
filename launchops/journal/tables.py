"""The journal's tables. One row per launch, one per create attempt, an event log, the
alerts' outbox, and the claims of batches shared by several workers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """The declarative base of the journal's tables: its `metadata` creates them all."""


class LaunchRow(Base):
    """One journal entry (`kind`: a launch, fund, withdraw, claim or agent mint):
    its config, state, mint and genesis, result, last error, and lease (owner,
    expiry, fencing number)."""

    __tablename__ = "launches"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), default="launch")
    config_hash: Mapped[str] = mapped_column(String(64))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    network: Mapped[str] = mapped_column(String(32))
    source: Mapped[str | None] = mapped_column(Text, nullable=True)
    state: Mapped[str] = mapped_column(String(32), index=True)
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    mint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    genesis: Mapped[str | None] = mapped_column(String(64), nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_details: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(String(120), nullable=True)
    lease_expires: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    lease_epoch: Mapped[int] = mapped_column(Integer, default=0)  # fencing: +1 at each holder
    worker: Mapped[str | None] = mapped_column(String(120), nullable=True)  # who took it last
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class AttemptRow(Base):
    """One create and everything done with its transactions."""

    __tablename__ = "create_attempts"

    key: Mapped[str] = mapped_column(
        ForeignKey("launches.key", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    created: Mapped[dict[str, Any]] = mapped_column(JSON)
    signed: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    signatures: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    sends: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, nullable=True)
    outcome: Mapped[str | None] = mapped_column(String(32), nullable=True)
    spent: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # fees, tip
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EventRow(Base):
    """The event log: one line per step or lease change of an entry, by `key`, in
    the order of `id`."""

    __tablename__ = "events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(80), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    step: Mapped[str] = mapped_column(String(32))
    message: Mapped[str] = mapped_column(Text)


class AlertRow(Base):
    """The outbox: a state a person must hear about, kept until the Prefect API took it.
    Written in the transaction that sets the state; `delivered_at` set once it was sent."""

    __tablename__ = "alerts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(80), index=True)
    kind: Mapped[str] = mapped_column(String(20))
    state: Mapped[str] = mapped_column(String(32))
    event: Mapped[str] = mapped_column(String(80))
    network: Mapped[str] = mapped_column(String(32))
    mint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    genesis: Mapped[str | None] = mapped_column(String(64), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    delivered_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )


class ClaimRow(Base):
    """A launch of a batch shared by several workers, in the batch's order, and who
    claimed it: each participant takes the next unclaimed one when it has a free lane
    (work stealing), so a worker that starts late takes what is left."""

    __tablename__ = "batch_claims"

    batch: Mapped[str] = mapped_column(String(64), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(80))
    worker: Mapped[str | None] = mapped_column(String(120), nullable=True)
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


# The tables as SQLAlchemy Core sees them: what the journal's statements name.
launches = LaunchRow.__table__
attempts = AttemptRow.__table__
events = EventRow.__table__
claims = ClaimRow.__table__
