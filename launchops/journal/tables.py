"""The journal's tables. One row per launch, one per create attempt, an event log, the
alerts' outbox, and the claims of batches shared by several workers.

SQLAlchemy Core tables, not ORM classes: the journal's statements name tables and
columns only, and `sqlalchemy.orm` is about a third of SQLAlchemy's import, paid by
every `launchops` command that opens the journal."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()
"""Every journal table: `metadata.create_all` makes them (`launch_statuses` too, once
`launchops.journal.watched` is imported)."""


def _when(name: str, *, nullable: bool = False, index: bool = False) -> Column:
    return Column(name, DateTime(timezone=True), nullable=nullable, index=index)


launches = Table(
    "launches",
    metadata,
    # One journal entry (`kind`: a launch, fund, withdraw, claim or agent mint): its
    # config, state, mint and genesis, result, last error, and lease (owner, expiry,
    # fencing number).
    Column("key", String(80), primary_key=True),
    Column("kind", String(20), nullable=False, default="launch"),
    Column("config_hash", String(64), nullable=False),
    Column("config", JSON, nullable=False),
    Column("network", String(32), nullable=False),
    Column("source", Text, nullable=True),
    Column("state", String(32), nullable=False, index=True),
    Column("attempt", Integer, nullable=False, default=0),
    Column("mint", String(64), nullable=True),
    Column("genesis", String(64), nullable=True),
    Column("result", JSON, nullable=True),
    Column("last_error", Text, nullable=True),
    Column("error_details", JSON, nullable=True),
    Column("lease_owner", String(120), nullable=True),
    _when("lease_expires", nullable=True),
    Column("lease_epoch", Integer, nullable=False, default=0),  # fencing: +1 at each holder
    Column("worker", String(120), nullable=True),  # who took it last
    _when("created_at"),
    _when("updated_at", index=True),
)

attempts = Table(
    "create_attempts",
    metadata,
    # One create and everything done with its transactions.
    Column("key", ForeignKey("launches.key", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("created", JSON, nullable=False),
    Column("signed", JSON, nullable=True),
    Column("signatures", JSON, nullable=True),
    Column("sends", JSON, nullable=True),
    Column("outcome", String(32), nullable=True),
    Column("spent", JSON, nullable=True),  # fees, tip
    _when("created_at"),
    _when("updated_at"),
)

events = Table(
    "events",
    metadata,
    # The event log: one line per step or lease change of an entry, by `key`, in the
    # order of `id`.
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(80), nullable=False, index=True),
    _when("at"),
    Column("step", String(32), nullable=False),
    Column("message", Text, nullable=False),
)

alerts = Table(
    "alerts",
    metadata,
    # The outbox: a state a person must hear about, kept until the Prefect API took it.
    # Written in the transaction that sets the state; `delivered_at` set once it was sent.
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(80), nullable=False, index=True),
    Column("kind", String(20), nullable=False),
    Column("state", String(32), nullable=False),
    Column("event", String(80), nullable=False),
    Column("network", String(32), nullable=False),
    Column("mint", String(64), nullable=True),
    Column("genesis", String(64), nullable=True),
    Column("error", Text, nullable=True),
    _when("created_at"),
    _when("delivered_at", nullable=True, index=True),
)

claims = Table(
    "batch_claims",
    metadata,
    # A launch of a batch shared by several workers, in the batch's order, and who
    # claimed it: each participant takes the next unclaimed one when it has a free lane
    # (work stealing), so a worker that starts late takes what is left.
    Column("batch", String(64), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("key", String(80), nullable=False),
    Column("worker", String(120), nullable=True),
    _when("claimed_at", nullable=True),
)
