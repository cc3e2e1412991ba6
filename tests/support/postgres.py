"""The machine's PostgreSQL (127.0.0.1:5432, user postgres, trust auth) for the tests that
need one: a fresh database each, dropped after. Where no server answers, those tests skip
with the reason (CI starts one, and fails a run in which a test skips)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


def admin():
    """A connection to the machine's PostgreSQL to make and drop databases with."""
    import psycopg

    try:
        return psycopg.connect(ADMIN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL at 127.0.0.1:5432 (user postgres, trust auth): {exc}")


def journal_rows(url: str, query: str, *params: object) -> list[tuple]:
    """The rows `query` reads from the PostgreSQL journal at `url`: none before a run has
    made the journal's tables (a batch read while its first launch starts)."""
    import psycopg

    with psycopg.connect(url) as db:
        try:
            return db.execute(query, params).fetchall()
        except psycopg.errors.UndefinedTable:
            return []


@contextmanager
def database(prefix: str, template: str | None = None) -> Iterator[str]:
    """A fresh database's name (a copy of `template`, if given), dropped after."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    copy = f' template "{template}"' if template else ""
    with admin() as db:
        db.execute(f'create database "{name}"{copy}')
    try:
        yield name
    finally:
        with admin() as db:
            db.execute(f'drop database if exists "{name}" with (force)')


@contextmanager
def fresh_names(*prefixes: str) -> Iterator[list[str]]:
    """Fresh database names for a command that makes the databases itself (`createdb`),
    each dropped after if it was made."""
    names = [f"{prefix}_{uuid.uuid4().hex[:10]}" for prefix in prefixes]
    admin().close()  # skips where no PostgreSQL answers
    try:
        yield names
    finally:
        with admin() as db:
            for name in names:
                db.execute(f'drop database if exists "{name}" with (force)')
