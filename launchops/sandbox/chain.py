"""The sandbox's chain: LiteSVM behind the timing a real cluster has.

LiteSVM executes transactions at once and keeps only its latest blockhash. This module
adds what a cluster does around that: slots that advance on a clock, a blockhash valid
for 150 blocks, transactions that land at the next slot and are `confirmed` one slot
later and `finalized` 32 slots later, and dropped or delayed transactions on demand.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from solders.account import Account
from solders.address_lookup_table_account import (
    AddressLookupTable,
    AddressLookupTableAccount,
)
from solders.hash import Hash
from solders.instruction import Instruction
from solders.litesvm import LiteSVM
from solders.message import MessageV0, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata

from launchops.api.programs import NATIVE_MINT, TOKEN_PROGRAM, native_mint_data
from launchops.errors import RpcError
from launchops.sandbox.formats import (
    LOOKUP_TABLE_PROGRAM,
    AnyMessage,
    TxFormat,
    compile_message,
    new_table,
    table_candidates,
)
from launchops.sandbox.tx_errors import err_json, meta_of, preflight_failure

BLOCKHASH_VALIDITY = 150
FINALIZED_DEPTH = 32
MEMO_V1 = Pubkey.from_string("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")
MEMO = Pubkey.from_string("MemoSq4gqABAXKb96qzC7pqaMYpTSYz7yeWnV8ekRNf")
EPOCH_SLOTS = 432_000
# Errors with which a leader drops a transaction rather than record it failed: a second
# landing of one signature, and a fee payer with no account or too few lamports.
UNPAYABLE = frozenset({"AlreadyProcessed", "AccountNotFound", "InsufficientFundsForFee"})


@dataclass
class Landed:
    """A transaction the chain executed, successfully or not."""

    slot: int
    err: Any  # the node's JSON form of a TransactionError, None when it succeeded
    raw: bytes
    fee: int
    logs: list[str]
    units: int
    block_time: int
    # Each loaded account's lamports before and after (what a node's meta answers)
    pre_balances: tuple[int, ...] = ()
    post_balances: tuple[int, ...] = ()


@dataclass
class ChainFaults:
    drop_rate: float = 0.0  # fraction of sends accepted and never landed
    congestion: float = 0.0  # fraction of plain sends that miss the leader of their slot
    tip_floor_lamports: int = 0  # bundles tipping less are passed over
    sniper: float = 0.0  # SOL a sniper buys each new bonding curve with (0: none)
    delay_slots: int = 0  # extra slots before a sent transaction lands
    expire_rate: float = 0.0  # fraction of new transactions built on a doomed blockhash
    expire_next: int = 0  # the next N new transactions are built on one
    fail_tail_next: int = 0  # the next N launches' later transactions fail on chain
    tx_format: TxFormat = "v0"  # the format new transactions are built in
    cluster: str = "mainnet-beta"  # whose genesis hash getGenesisHash answers


@dataclass
class _Pending:
    tx: VersionedTransaction
    raw: bytes


@dataclass
class Chain:
    """One cluster, driven by `advance()`; every method runs on one thread (the event loop)."""

    slot_ms: int = 400
    faults: ChainFaults = field(default_factory=ChainFaults)
    on_landed: Callable[[VersionedTransaction, Landed], None] | None = None
    on_set: Callable[[Pubkey, Account], None] | None = None  # an account written directly
    # A transaction of a program that does not run here, played by the sandbox: its effect
    # (`apply(chain)` answers the error, or None), else None (launchops.sandbox.emulation).
    # (launchops.sandbox.play: the instructions of programs LiteSVM cannot run, played; a
    # play answers `simulate(chain)` too, for a preflight and simulateTransaction.)
    emulate: Callable[[VersionedTransaction], Any] | None = None
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        # We check blockhashes ourselves against a 150-block window, and signatures where a
        # transaction comes in (a send, a bundle): LiteSVM also runs the parts of a played
        # transaction (launchops.sandbox.play), whose signatures are over the whole.
        self.svm = LiteSVM().with_blockhash_check(False).with_sigverify(False)
        memo_v1 = self.svm.get_account(MEMO_V1)
        if memo_v1 is not None:  # the current Memo id runs v1's code (see notes/solana.md)
            self.svm.add_program(MEMO, bytes(memo_v1.data))
        native = native_mint_data()  # wrapped SOL's mint, there on every cluster
        self.svm.set_account(
            NATIVE_MINT, Account(self.rent_exempt(len(native)), native, TOKEN_PROGRAM, False)
        )
        self.slot = 0
        self.blockhashes: OrderedDict[Hash, int] = OrderedDict()
        self.landed: dict[Signature, Landed] = {}
        self.by_address: dict[Pubkey, list[Signature]] = defaultdict(list)  # oldest first
        self.pending: dict[int, list[_Pending]] = defaultdict(list)
        self.pending_sigs: set[Signature] = set()
        self.dropped: set[Signature] = set()
        self.doomed: dict[Hash, int] = {}  # blockhashes handed out to force an expiry
        self.failing: set[bytes] = set()  # messages that fail on chain when they land
        self.listeners: list[Callable[[int], None]] = []
        # What else fills a slot once its sent transactions landed, before anyone is told
        # of it: the block engine's bundles, the sniper's buys.
        self.producers: list[Callable[[int], None]] = []
        self.landing_hooks: list[Callable[[VersionedTransaction, Landed], None]] = []
        self._new_blockhash()

    # ── time ────────────────────────────────────────────────────────────────

    @property
    def block_height(self) -> int:
        return self.slot  # no skipped slots here

    def advance(self, slots: int = 1) -> None:
        """Move the chain forward: a new blockhash per slot; queued transactions land."""
        for _ in range(slots):
            self.slot += 1
            self.svm.warp_to_slot(self.slot)
            self._new_blockhash()
            for item in self.pending.pop(self.slot, []):
                self.pending_sigs.discard(item.tx.signatures[0])
                self._land(item)
            for producer in list(self.producers):
                producer(self.slot)
        for listener in list(self.listeners):
            listener(self.slot)

    def _new_blockhash(self) -> None:
        """This slot's blockhash, newest in the window. LiteSVM's own sequence is the same in
        every process, so a chain kept in a folder and restarted would hand out hashes it
        already holds; each one is instead the hash of the one before and the slot, which
        a restored chain continues from its kept window and never repeats."""
        self.svm.expire_blockhash()  # LiteSVM's own (its airdrops are built on it)
        previous = next(reversed(self.blockhashes), None)
        if previous is None:
            blockhash = self.svm.latest_blockhash()
        else:
            seed = bytes(previous) + self.slot.to_bytes(8, "little")
            blockhash = Hash(hashlib.sha256(seed).digest())
        self.blockhashes.pop(blockhash, None)  # a hash met again moves to the newest place
        self.blockhashes[blockhash] = self.block_height + BLOCKHASH_VALIDITY
        while len(self.blockhashes) > 2 * BLOCKHASH_VALIDITY:
            self.blockhashes.popitem(last=False)

    def latest_blockhash(self) -> tuple[Hash, int]:
        blockhash = next(reversed(self.blockhashes))
        return blockhash, self.blockhashes[blockhash]

    def blockhash_for_new(self) -> tuple[Hash, int]:
        """The blockhash the service builds a new transaction on: the latest one, or, when
        the faults force an expiry, a fresh one valid for this slot only. Whatever is
        sent with it lands no earlier than the next slot, where it is already dead."""
        faults = self.faults
        forced = faults.expire_next > 0
        if forced:
            faults.expire_next -= 1
        elif not (faults.expire_rate and self.rng.random() < faults.expire_rate):
            return self.latest_blockhash()
        doomed = Hash(bytes(self.rng.getrandbits(8) for _ in range(32)))
        self.doomed[doomed] = self.block_height
        while len(self.doomed) > 1024:
            self.doomed.pop(next(iter(self.doomed)))
        return doomed, self.block_height

    def blockhash_valid(self, blockhash: Hash, height: int | None = None) -> bool:
        """Whether `blockhash` is valid at block `height` (the chain's own by default):
        made at or before it (a doomed one lives for its own block only), not yet past."""
        height = self.block_height if height is None else height
        if blockhash in self.doomed:
            return self.doomed[blockhash] == height
        last_valid = self.blockhashes.get(blockhash)
        return last_valid is not None and last_valid - BLOCKHASH_VALIDITY <= height <= last_valid

    def restore_time(self, slot: int, blockhashes: list[tuple[str, int]]) -> None:
        """Continue after `slot` with the blockhash window a previous run left."""
        self.blockhashes = OrderedDict((Hash.from_string(h), v) for h, v in blockhashes)
        self.slot = slot
        self.advance()

    # ── transactions ────────────────────────────────────────────────────────

    def send(self, raw: bytes, *, skip_preflight: bool = False) -> Signature:
        """Accept a signed transaction as sendTransaction does; it lands at the next slot."""
        try:
            tx = VersionedTransaction.from_bytes(raw)
        except Exception as exc:  # solders raises several types for junk bytes
            raise RpcError(-32602, f"invalid transaction: failed to deserialize: {exc}") from None
        if not tx.signatures or not all(tx.verify_with_results()):
            raise RpcError(-32003, "Transaction signature verification failure")
        signature = tx.signatures[0]
        if signature in self.landed or signature in self.pending_sigs:
            if skip_preflight or signature in self.pending_sigs:
                return signature
            raise preflight_failure("AlreadyProcessed")
        if not skip_preflight:
            self._preflight(tx)
        if self.faults.drop_rate and self.rng.random() < self.faults.drop_rate:
            # Accepted, and lost like a dropped packet: only a rebroadcast can land it.
            self.dropped.add(signature)
            return signature
        if self.faults.congestion and self.rng.random() < self.faults.congestion:
            # A busy cluster: this send did not reach the leader; the next one may.
            self.dropped.add(signature)
            return signature
        lands_at = self.slot + 1 + max(0, self.faults.delay_slots)
        self.pending[lands_at].append(_Pending(tx, raw))
        self.pending_sigs.add(signature)
        return signature

    def _preflight(self, tx: VersionedTransaction) -> None:
        """Refuse `tx` as a node's preflight does: its blockhash, then its simulation."""
        if not self.blockhash_valid(tx.message.recent_blockhash):
            raise preflight_failure("BlockhashNotFound")
        emulated = self._emulated(tx)
        if hasattr(emulated, "simulate"):
            err, logs, _ = emulated.simulate(self)
            if err is not None:
                raise preflight_failure(err, logs, 0)
        result = None if emulated is not None else self.svm.simulate_transaction(tx)
        if isinstance(result, FailedTransactionMetadata):
            logs, units = meta_of(result.meta())
            raise preflight_failure(err_json(result), logs, units)

    def land_now(self, tx: VersionedTransaction) -> Landed | None:
        """Execute a signed transaction in the current slot, without a send (what the
        sandbox's own swaps use); None when it could not land (expired blockhash)."""
        self._land(_Pending(tx, bytes(tx)))
        return self.landed.get(tx.signatures[0])

    def fail_on_landing(self, message: bytes) -> None:
        """This message, signed and sent, lands failed (a fault: see `fail_tail_next`)."""
        self.failing.add(message)

    def _land(self, item: _Pending) -> None:
        landed = self.execute(item.tx, item.raw)
        if landed is not None:
            self.record(item.tx, landed)

    def execute(self, tx: VersionedTransaction, raw: bytes) -> Landed | None:
        """Run a transaction in this slot, without keeping it yet (`record` does): what it
        did, or None when a leader would drop it (expired, or a payer that cannot pay)."""
        if not self.blockhash_valid(tx.message.recent_blockhash):
            return None  # expired while queued: a real leader would drop it too
        keys = self.keys_of(tx)
        pre = tuple(self.lamports(key) for key in keys)
        emulated = self._emulated(tx)
        if to_bytes_versioned(tx.message) in self.failing:
            err: Any = {"InstructionError": [0, {"Custom": 1}]}
            logs, units = ["Program failed: custom program error: 0x1 (sandbox fault)"], 0
        elif emulated is not None:
            err = emulated.apply(self)
            logs = getattr(emulated, "logs", None) or [
                "Program mpl-core Execute: emulated by the sandbox"
            ]
            units = 0
        else:
            result = self.svm.send_transaction(tx)
            failed = isinstance(result, FailedTransactionMetadata)
            logs, units = meta_of(result.meta() if failed else result)
            err = err_json(result) if failed else None
        if isinstance(err, str) and err in UNPAYABLE:
            return None  # a fee payer that cannot pay: the leader drops it, nothing recorded
        return Landed(
            slot=self.slot,
            err=err,
            raw=raw,
            fee=5000 * len(tx.signatures),
            logs=logs,
            units=units,
            block_time=int(time.time()),
            pre_balances=pre,
            post_balances=tuple(self.lamports(key) for key in keys),
        )

    def lamports(self, key: Pubkey) -> int:
        account = self.svm.get_account(key)
        return account.lamports if account is not None else 0

    def _emulated(self, tx: VersionedTransaction) -> Any:
        """What the sandbox does for `tx` in place of LiteSVM, if anything (`emulate`)."""
        return self.emulate(tx) if self.emulate is not None else None

    def record(self, tx: VersionedTransaction, landed: Landed) -> None:
        """Keep a transaction that ran, and tell whoever keeps the chain."""
        self.remember(tx, landed)
        if self.on_landed is not None:
            self.on_landed(tx, landed)
        for hook in list(self.landing_hooks):
            hook(tx, landed)

    def remember(self, tx: VersionedTransaction, landed: Landed) -> None:
        """Keep a landed transaction, found by its signature and by every account it loaded
        (what getSignaturesForAddress reads)."""
        signature = tx.signatures[0]
        self.landed[signature] = landed
        for key in dict.fromkeys(self.keys_of(tx)):
            self.by_address[key].append(signature)

    def signatures_of(self, address: Pubkey) -> list[Signature]:
        return list(self.by_address.get(address, ()))

    def memo_of(self, signature: Signature) -> str | None:
        """Memo texts of a landed transaction as a node shows them: `[length] text`."""
        landed = self.landed.get(signature)
        if landed is None or not landed.raw:
            return None
        message = VersionedTransaction.from_bytes(landed.raw).message
        keys = message.account_keys
        texts = [
            f"[{len(bytes(ix.data))}] {bytes(ix.data).decode(errors='replace')}"
            for ix in message.instructions
            if keys[ix.program_id_index] in (MEMO, MEMO_V1)
        ]
        return "; ".join(texts) or None

    def simulate(self, raw: bytes, addresses: Sequence[Pubkey] | None = None) -> dict[str, Any]:
        """What a node's simulateTransaction answers; with `addresses` (its `accounts`
        config), those accounts as the transaction would leave them (base64)."""
        tx = VersionedTransaction.from_bytes(raw)
        emulated = self._emulated(tx)
        after: list[Account | None] = []
        if hasattr(emulated, "simulate"):
            err, logs, after = emulated.simulate(self, addresses or ())
            failed, units = err is not None, 0
        else:
            result = self.svm.simulate_transaction(tx)
            failed = isinstance(result, FailedTransactionMetadata)
            logs, units = meta_of(result.meta())
            err = err_json(result) if failed else None
            if not failed:
                post = dict(result.post_accounts())
                after = [post.get(key) or self.account(key) for key in addresses or ()]
        if not failed and not self.blockhash_valid(tx.message.recent_blockhash):
            err = "BlockhashNotFound"
        accounts = None  # the accounts as they would be left (rpc.py writes them out)
        if addresses is not None and not failed:
            accounts = [a if a is not None and (a.lamports or a.data) else None for a in after]
        return {
            "err": err,
            "logs": logs,
            "accounts": accounts,
            "unitsConsumed": units,
            "returnData": None,
            "innerInstructions": None,
            "replacementBlockhash": None,
        }

    def status(self, signature: Signature, at: int | None = None) -> dict[str, Any] | None:
        """Where `signature` stands as seen at slot `at` (default: now)."""
        view = self.slot if at is None else at
        landed = self.landed.get(signature)
        if landed is None or landed.slot > view:
            return None
        depth = view - landed.slot
        if depth >= FINALIZED_DEPTH:
            level, confirmations = "finalized", None
        elif depth >= 1:
            level, confirmations = "confirmed", depth
        else:
            level, confirmations = "processed", 0
        return {
            "slot": landed.slot,
            "confirmations": confirmations,
            "err": landed.err,
            "status": {"Ok": None} if landed.err is None else {"Err": landed.err},
            "confirmationStatus": level,
        }

    # ── accounts ────────────────────────────────────────────────────────────

    def made_after(self, key: Pubkey, slot: int) -> bool:
        """Whether the account `key` was first touched by a transaction landed after `slot`
        (so a node that far behind does not have it yet)."""
        first = self.by_address.get(key)
        landed = self.landed.get(first[0]) if first else None
        return landed is not None and landed.slot > slot

    def account(self, key: Pubkey) -> Account | None:
        account = self.svm.get_account(key)
        if account is None or (account.lamports == 0 and not account.data):
            return None
        return account

    def set_account(self, key: Pubkey, account: Account) -> None:
        self.svm.set_account(key, account)
        if self.on_set is not None:
            self.on_set(key, account)

    def keys_of(self, tx: VersionedTransaction) -> list[Pubkey]:
        """Every account a transaction loads: its own keys, then those of its lookup
        tables (writable ones first, as the runtime orders them)."""
        message = tx.message
        keys = list(message.account_keys)
        if not isinstance(message, MessageV0):
            return keys
        writable: list[Pubkey] = []
        readonly: list[Pubkey] = []
        for lookup in message.address_table_lookups:
            table = self.account(lookup.account_key)
            if table is None or table.owner != LOOKUP_TABLE_PROGRAM:
                continue
            addresses = AddressLookupTable.deserialize(bytes(table.data)).addresses
            writable += [addresses[i] for i in lookup.writable_indexes if i < len(addresses)]
            readonly += [addresses[i] for i in lookup.readonly_indexes if i < len(addresses)]
        return keys + writable + readonly

    # ── building ────────────────────────────────────────────────────────────

    def build(
        self, payer: Pubkey, groups: list[list[Instruction]], blockhash: Hash
    ) -> list[AnyMessage]:
        """One message per group of instructions, in the format the faults set; for
        `v0-alt`, one lookup table written on the chain for all of them."""
        tx_format = self.faults.tx_format
        table = None
        if tx_format == "v0-alt":
            addresses = table_candidates(groups)
            key, account = new_table(addresses, self.rent_exempt(len(addresses) * 32 + 56))
            self.set_account(key, account)
            table = AddressLookupTableAccount(key, addresses)
        return [compile_message(tx_format, payer, ixs, blockhash, table) for ixs in groups]

    def airdrop(self, key: Pubkey, lamports: int) -> Signature:
        result = self.svm.airdrop(key, lamports)
        if isinstance(result, FailedTransactionMetadata) and err_json(result) == "AlreadyProcessed":
            # The same airdrop twice in one slot is the same transaction: a second request
            # is a second credit, so build it on a fresh (LiteSVM-internal) blockhash.
            self.svm.expire_blockhash()
            result = self.svm.airdrop(key, lamports)
        if isinstance(result, FailedTransactionMetadata):
            raise RpcError(-32603, f"airdrop failed: {err_json(result)}")
        signature = result.signature()
        self.landed[signature] = Landed(self.slot, None, b"", 5000, [], 150, int(time.time()))
        return signature

    def rent_exempt(self, size: int) -> int:
        return self.svm.minimum_balance_for_rent_exemption(size)
