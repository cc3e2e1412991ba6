"""What the sandbox keeps: documents (agents, created and registered launches) and, with
a data folder, the chain itself (accounts, landed transactions, slot and blockhashes).

One SQLite database; in memory when no folder is given. Every write commits at once, so
a killed sandbox restarted on the same folder loses nothing it had acknowledged.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.errors import SandboxUnavailable
from launchops.sandbox.chain import Chain, Landed

SCHEMA = """
create table if not exists documents (
    kind text not null, key text not null, body text not null, seq integer not null,
    primary key (kind, key)
);
create table if not exists accounts (
    pubkey text primary key, lamports integer not null, data blob not null,
    owner text not null, executable integer not null
);
create table if not exists transactions (
    signature text primary key, slot integer not null, err text, raw blob not null,
    fee integer not null, logs text not null, units integer not null, block_time integer not null
);
create table if not exists blockhashes (
    slot integer primary key, blockhash text not null, last_valid integer not null
);
"""


class SandboxStore:
    def __init__(self, data_dir: Path | None = None) -> None:
        self.persistent = data_dir is not None
        try:
            self.db = self._open(data_dir)
            self._seq = self.db.execute("select coalesce(max(seq), 0) from documents").fetchone()[0]
        except (OSError, sqlite3.Error) as exc:  # not a database, a folder it cannot write
            raise SandboxUnavailable(
                f"the sandbox's chain in {data_dir} cannot be opened ({exc}); move that folder "
                f"aside to start a new chain (mv {data_dir} {data_dir}.broken)"
            ) from None

    @staticmethod
    def _open(data_dir: Path | None) -> sqlite3.Connection:
        if data_dir is not None:
            data_dir.mkdir(parents=True, exist_ok=True)
        path = str(data_dir / "sandbox.db") if data_dir is not None else ":memory:"
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("pragma journal_mode=wal")
        db.execute("pragma synchronous=normal")
        db.executescript(SCHEMA)
        columns = {row[1] for row in db.execute("pragma table_info(transactions)")}
        if "balances" not in columns:  # a chain kept before balances were: none for those
            db.execute("alter table transactions add column balances text")
        return db

    def close(self) -> None:
        self.db.close()

    # ── documents ───────────────────────────────────────────────────────────

    def put(self, kind: str, key: str, body: dict[str, Any]) -> None:
        self._seq += 1
        self.db.execute(
            "insert into documents (kind, key, body, seq) values (?, ?, ?, ?) "
            "on conflict (kind, key) do update set body = excluded.body",
            (kind, key, json.dumps(body), self._seq),
        )

    def delete(self, kind: str, key: str) -> None:
        self.db.execute("delete from documents where kind = ? and key = ?", (kind, key))

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "select body from documents where kind = ? and key = ?", (kind, key)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def all(self, kind: str) -> Iterator[dict[str, Any]]:
        rows = self.db.execute("select body from documents where kind = ? order by seq", (kind,))
        for (body,) in rows:
            yield json.loads(body)

    def count(self, kind: str) -> int:
        return self.db.execute("select count(*) from documents where kind = ?", (kind,)).fetchone()[
            0
        ]

    # ── the chain ───────────────────────────────────────────────────────────

    def attach(self, chain: Chain) -> None:
        """Restore `chain` from the folder, then keep every change it makes."""
        if not self.persistent:
            return
        self._restore(chain)
        chain.on_landed = self._keep_landed(chain)
        chain.on_set = self.save_account
        keep_time = self._keep_time(chain)
        keep_time(chain.slot)  # the blockhash answered before the first slot passes
        chain.listeners.append(keep_time)

    def save_account(self, key: Pubkey, account: Account | None) -> None:
        if not self.persistent or account is None:
            return
        self.db.execute(
            "insert or replace into accounts values (?, ?, ?, ?, ?)",
            (
                str(key),
                account.lamports,
                bytes(account.data),
                str(account.owner),
                account.executable,
            ),
        )

    def _keep_landed(self, chain: Chain) -> Any:
        def keep(tx: VersionedTransaction, landed: Landed) -> None:
            self.db.execute("begin")
            for key in chain.keys_of(tx):
                self.save_account(key, chain.svm.get_account(key))
            self.db.execute(
                "insert or replace into transactions values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    str(tx.signatures[0]),
                    landed.slot,
                    json.dumps(landed.err),
                    landed.raw,
                    landed.fee,
                    json.dumps(landed.logs),
                    landed.units,
                    landed.block_time,
                    json.dumps([landed.pre_balances, landed.post_balances]),
                ),
            )
            self.db.execute("commit")

        return keep

    def _keep_time(self, chain: Chain) -> Any:
        def keep(slot: int) -> None:
            blockhash, last_valid = chain.latest_blockhash()
            self.db.execute(
                "insert or replace into blockhashes values (?, ?, ?)",
                (slot, str(blockhash), last_valid),
            )
            if slot % 500 == 0:
                self.db.execute("delete from blockhashes where slot < ?", (slot - 400,))

        return keep

    def _restore(self, chain: Chain) -> None:
        for pubkey, lamports, data, owner, executable in self.db.execute("select * from accounts"):
            account = Account(lamports, bytes(data), Pubkey.from_string(owner), bool(executable))
            chain.set_account(Pubkey.from_string(pubkey), account)
        for row in self.db.execute("select * from transactions order by slot, rowid"):
            signature, slot, err, raw, fee, logs, units, block_time, balances = row
            pre, post = json.loads(balances) if balances else ((), ())
            landed = Landed(
                slot,
                json.loads(err),
                bytes(raw),
                fee,
                json.loads(logs),
                units,
                block_time,
                tuple(pre),
                tuple(post),
            )
            if raw:
                chain.remember(VersionedTransaction.from_bytes(bytes(raw)), landed)
            else:  # an airdrop: kept by its signature only
                chain.landed[Signature.from_string(signature)] = landed
        window = self.db.execute(
            "select slot, blockhash, last_valid from blockhashes order by slot"
        ).fetchall()
        if window:
            chain.restore_time(window[-1][0], [(h, v) for _, h, v in window])
