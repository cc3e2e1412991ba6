"""A Jito block engine at the sandbox: bundles of up to 5 transactions, run in order in one
slot, all or nothing, and only with a tip to one of the 8 tip accounts.

What Jito's rules say and this keeps: a bundle is refused at `sendBundle` when it cannot
be decoded, holds more than 5 transactions, carries a bad signature or tips less than
1,000 lamports; one accepted lands whole at the next slot, or not at all (a transaction
that fails, was already processed or has a dead blockhash drops the bundle); a bundle
tipping below the `tip_floor_lamports` fault is passed over each slot until its
blockhash dies. Its id is the SHA-256 of its transactions' signatures, in order (hex);
sending the same bundle again is the same bundle. Plain sends on `/transactions` go the
way of `sendTransaction` (and of the `congestion` fault).
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass, field
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.errors import RpcError
from launchops.sandbox.chain import Chain, Landed

MAX_BUNDLE = 5
MIN_TIP = 1000
SYSTEM_PROGRAM = Pubkey.from_string("11111111111111111111111111111111")
TRANSFER = 2  # the System program's Transfer instruction
# Jito's mainnet tip accounts, as getTipAccounts answers them.
TIP_ACCOUNTS = tuple(
    Pubkey.from_string(key)
    for key in (
        "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5",
        "HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe",
        "Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY",
        "ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49",
        "DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh",
        "ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt",
        "DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL",
        "3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT",
    )
)


@dataclass
class Bundle:
    """One bundle the engine took: its transactions and what became of it."""

    id: str
    txs: list[VersionedTransaction]
    raws: list[bytes]
    tip: int
    received_slot: int = 0  # the slot it first came in
    landed_slot: int | None = None
    failed: str | None = None  # why it was dropped, when it was
    passed_over: int = 0  # slots it was passed over for its tip

    @property
    def signatures(self) -> list[Signature]:
        return [tx.signatures[0] for tx in self.txs]


@dataclass
class BlockEngine:
    """Bundles in flight and landed; lands the queued ones as a slot fills (`produce`)."""

    chain: Chain
    bundles: dict[str, Bundle] = field(default_factory=dict)
    queued: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.chain.producers.append(self.produce)
        for key in TIP_ACCOUNTS:  # there on mainnet, rent-exempt: a tip of 1,000 lands
            if self.chain.account(key) is None:
                lamports = self.chain.rent_exempt(0)
                self.chain.set_account(key, Account(lamports, b"", SYSTEM_PROGRAM, False))

    # ── sendBundle ──────────────────────────────────────────────────────────

    def send_bundle(self, raws: list[bytes]) -> str:
        if not raws:
            raise RpcError(-32602, "bundle must contain at least one transaction")
        if len(raws) > MAX_BUNDLE:
            raise RpcError(-32602, f"bundle contains {len(raws)} transactions; max {MAX_BUNDLE}")
        txs = [_transaction(raw) for raw in raws]
        bundle_id = hashlib.sha256(b"".join(bytes(tx.signatures[0]) for tx in txs)).hexdigest()
        known = self.bundles.get(bundle_id)
        if known is not None and known.failed is None:
            return bundle_id  # the same bundle again: still in flight, or landed
        tip = sum(tip_of(tx) for tx in txs)
        if tip < MIN_TIP:
            raise RpcError(
                -32602,
                f"bundles must write lock at least one tip account and tip at least {MIN_TIP} "
                "lamports to be eligible for the auction",
            )
        self.bundles[bundle_id] = Bundle(bundle_id, txs, list(raws), tip, self.chain.slot)
        self.queued.append(bundle_id)
        return bundle_id

    # ── landing ─────────────────────────────────────────────────────────────

    def produce(self, slot: int) -> None:
        """Land each queued bundle in this slot, whole, or drop it whole."""
        waiting = []
        for bundle_id in self.queued:
            bundle = self.bundles[bundle_id]
            if not all(
                self.chain.blockhash_valid(tx.message.recent_blockhash) for tx in bundle.txs
            ):
                bundle.failed = "a transaction's blockhash expired"
            elif bundle.tip < self.chain.faults.tip_floor_lamports:
                bundle.passed_over += 1  # outbid: tried again next slot, while it lives
                waiting.append(bundle_id)
            else:
                self._land(bundle, slot)
        self.queued = waiting

    def _land(self, bundle: Bundle, slot: int) -> None:
        chain = self.chain
        if any(s in chain.landed for s in bundle.signatures):
            bundle.failed = "a transaction was already processed"
            return
        saved = {key: chain.svm.get_account(key) for tx in bundle.txs for key in chain.keys_of(tx)}
        ran: list[tuple[VersionedTransaction, Landed]] = []
        for tx, raw in zip(bundle.txs, bundle.raws, strict=True):
            landed = chain.execute(tx, raw)
            if landed is None or landed.err is not None:
                for key, account in saved.items():  # all or nothing: undo what ran
                    chain.svm.set_account(key, account or Account(0, b"", SYSTEM_PROGRAM, False))
                bundle.failed = f"transaction {len(ran) + 1} failed: " + (
                    str(landed.err) if landed else "it could not be paid for"
                )
                return
            ran.append((tx, landed))
        for tx, landed in ran:
            chain.record(tx, landed)
        bundle.landed_slot = slot

    def counts(self) -> dict[str, Any]:
        """Bundles landed, dropped and in flight, and the slots each landed one took from
        its first arrival (what `/_sandbox/stats` shows)."""
        found: dict[str, Any] = {"landed": 0, "failed": 0, "pending": 0}
        found["slotsToLand"] = [
            b.landed_slot - b.received_slot for b in self.bundles.values() if b.landed_slot
        ]
        for bundle in self.bundles.values():
            kind = (
                "landed"
                if bundle.landed_slot is not None
                else "failed"
                if bundle.failed
                else "pending"
            )
            found[kind] += 1
        return found

    # ── statuses, as Jito answers them ──────────────────────────────────────

    def bundle_statuses(self, ids: list[str]) -> dict[str, Any]:
        value = []
        for bundle_id in _ids(ids):
            bundle = self.bundles.get(bundle_id)
            if bundle is None or bundle.landed_slot is None:
                value.append(None)
                continue
            status = self.chain.status(bundle.signatures[-1]) or {}
            value.append(
                {
                    "bundle_id": bundle_id,
                    "transactions": [str(s) for s in bundle.signatures],
                    "slot": bundle.landed_slot,
                    "confirmation_status": status.get("confirmationStatus", "processed"),
                    "err": {"Ok": None},
                }
            )
        return {"context": {"slot": self.chain.slot}, "value": value}

    def inflight_statuses(self, ids: list[str]) -> dict[str, Any]:
        value = []
        for bundle_id in _ids(ids):
            bundle = self.bundles.get(bundle_id)
            if bundle is None:
                status = "Invalid"
            elif bundle.landed_slot is not None:
                status = "Landed"
            else:
                status = "Failed" if bundle.failed else "Pending"
            landed = bundle.landed_slot if bundle else None
            value.append({"bundle_id": bundle_id, "status": status, "landed_slot": landed})
        return {"context": {"slot": self.chain.slot}, "value": value}


def tip_of(tx: VersionedTransaction) -> int:
    """Lamports a transaction transfers to the tip accounts (System transfers only)."""
    message = tx.message
    keys = message.account_keys
    total = 0
    for ix in message.instructions:
        data = bytes(ix.data)
        if keys[ix.program_id_index] != SYSTEM_PROGRAM or len(data) != 12 or len(ix.accounts) < 2:
            continue
        kind, lamports = struct.unpack("<IQ", data)
        if kind == TRANSFER and keys[ix.accounts[1]] in TIP_ACCOUNTS:
            total += lamports
    return total


def _transaction(raw: bytes) -> VersionedTransaction:
    try:
        tx = VersionedTransaction.from_bytes(raw)
    except Exception:  # solders raises several types for junk bytes
        raise RpcError(-32602, "invalid transaction: failed to deserialize") from None
    if not tx.signatures or not all(tx.verify_with_results()):
        raise RpcError(-32602, "bundle contains a transaction with an invalid signature")
    return tx


def _ids(ids: Any) -> list[str]:
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise RpcError(-32602, "Invalid params: expected an array of bundle ids")
    if len(ids) > MAX_BUNDLE:
        raise RpcError(-32602, f"Too many bundle ids; max {MAX_BUNDLE}")
    return ids
