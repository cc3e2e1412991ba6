"""Prefect's SQLite database, migrated once for the whole suite.

A Prefect server on a new SQLite database first runs every migration of its schema: ~5.7
of the ~8.4 s of CPU `prefect server database upgrade` spends on an empty one (2.7 s on
one already migrated, the import). The suite starts a dozen such servers (each test
process's own, and the temporary servers of commands run with a Prefect home of their
own), so the first process that needs one migrates a database once, under a lock, in the
session's folder, and every server after starts on a copy: as a user's second command
finds ~/.prefect/prefect.db. What tests a server's very first start (migrations and all)
keeps an empty home.

The servers on PostgreSQL (tests/support/prefect_pool.py) start the same way: on a
database made from a migrated template (`CREATE DATABASE ... TEMPLATE`, a file copy),
~2.2 s of CPU less each than a first start's migrations. The README's word-for-word runs
make their databases as the README does, and migrate them.

Both templates hold Prefect's block types and schemas too, registered once as a server's
start registers them (`tests/support/prefect_blocks.py`): a server the suite starts on a
copy (each process's own, the module servers) skips that step (`TEMPLATE_SERVER`), ~1 s
of CPU of its ~4.5 s start; its database is the same as after the step. A command's
temporary server on a seeded home (`seed_home`) registers them as a user's does.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support import forks

SESSION = "LAUNCHOPS_TESTS_SESSION"  # the session's folder, named by the first process
# The settings of a server started on a copy of a template: its block types are there.
TEMPLATE_SERVER = {
    "PREFECT_SERVER_REGISTER_BLOCKS_ON_START": "false",
    "PREFECT_SERVER_MEMOIZE_BLOCK_AUTO_REGISTRATION": "false",
}


def session_folder() -> Path:
    """The folder the suite's processes share (made by the first, which removes it)."""
    if SESSION not in os.environ:
        import atexit
        import shutil

        folder = tempfile.mkdtemp(prefix="launchops-tests-session-")
        os.environ[SESSION] = folder
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        atexit.register(_drop_postgres_template)  # before the folder goes
    return Path(os.environ[SESSION])


def _upgrade(folder: Path, url: str) -> None:
    """`prefect server database upgrade` on the database at `url`, then Prefect's block
    types registered in it."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")},
        "PREFECT_HOME": str(folder / "prefect-template-home"),
        "PREFECT_API_DATABASE_CONNECTION_URL": url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    upgrade = [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"]
    blocks = [sys.executable, "-m", "tests.support.prefect_blocks"]
    for command, what in ((upgrade, "migrate"), (blocks, "take Prefect's block types")):
        done = forks.run(command, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"the Prefect database did not {what}: {done.stderr[-2000:]}")


def template() -> Path:
    """A Prefect database migrated to the installed Prefect's schema (made on first use)."""
    folder = session_folder()
    made = folder / "prefect-template.db"
    with (folder / "prefect-template.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            making = folder / "prefect-template-making.db"
            making.unlink(missing_ok=True)
            _upgrade(folder, f"sqlite+aiosqlite:///{making}")
            making.rename(made)
    return made


def copy_to(path: Path) -> Path:
    """A copy of the migrated database at `path` (its folder made): a server started on it
    runs no migration."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(template()) as source, sqlite3.connect(path) as target:
        source.backup(target)
    return path


def postgres_template() -> str:
    """The name of a PostgreSQL database migrated to the installed Prefect's schema, made
    on first use (under the session's lock) and dropped when the session ends."""
    from tests.support.postgres import admin

    folder = session_folder()
    named = folder / "prefect-template.pg"
    with (folder / "prefect-template-pg.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not named.exists():
            name = f"prefect_template_{uuid.uuid4().hex[:10]}"
            with admin() as db:
                db.execute(f'create database "{name}"')
            try:
                _upgrade(folder, f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}")
            except BaseException:
                _drop(name)  # not left behind half migrated
                raise
            named.write_text(name)
    return named.read_text()


def _drop_postgres_template() -> None:
    """The session's PostgreSQL template dropped, if one was made (at the session's end)."""
    named = session_folder() / "prefect-template.pg"
    if named.exists():
        _drop(named.read_text())


def _drop(name: str) -> None:
    """The database `name` dropped; quietly where no PostgreSQL answers (a skip)."""
    from tests.support.postgres import admin

    with contextlib.suppress(BaseException), admin() as db:
        db.execute(f'drop database if exists "{name}" with (force)')


@contextmanager
def postgres_database(prefix: str) -> Iterator[str]:
    """A fresh PostgreSQL database's name, already migrated for a Prefect server (a copy
    of the session's template), dropped after."""
    from tests.support.postgres import database

    with database(prefix, template=postgres_template()) as name:
        yield name


def seed_home(home: Path) -> Path:
    """A Prefect home whose database is already migrated (`home/prefect.db`, where a
    temporary server keeps it), as on a machine that has run a command before."""
    copy_to(home / "prefect.db")
    return home


__all__ = [
    "copy_to",
    "postgres_database",
    "postgres_template",
    "seed_home",
    "session_folder",
    "template",
]
