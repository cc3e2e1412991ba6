"""Transactions that call programs LiteSVM cannot run (Genesis, Token Metadata, mpl-core),
played by the sandbox beside LiteSVM, all or nothing.

A transaction with an instruction of a played program is not given to LiteSVM whole. Its
fee is taken from its payer; then, in order, each run of instructions of programs that do
run here goes to LiteSVM as a transaction of its own (the same accounts, signers and
payer; the signatures were verified when the transaction was sent, so LiteSVM checks none
here, and the fee it takes for the part is given back), and each instruction of a played
program is applied by its player: the program's checks, then its effects as account
writes. The first failure puts back every account the transaction touched and is the
error a node reports (`InstructionError: [index, {"Custom": code}]`); the fee stays paid.
A simulation plays it the same way and puts everything back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from solders.account import Account
from solders.instruction import AccountMeta, Instruction
from solders.message import Message, MessageV0
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction
from solders.transaction_metadata import FailedTransactionMetadata

from launchops.api import programs as p
from launchops.sandbox.tx_errors import err_json, meta_of

if TYPE_CHECKING:
    from launchops.sandbox.chain import Chain

LAMPORTS_PER_SIGNATURE = 5000


class Refused(Exception):
    """A played program's refusal: `error` is the node's JSON of the instruction's error
    (`{"Custom": code}` or a built-in one such as "MissingRequiredSignature")."""

    def __init__(self, error: Any, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.error = error
        self.index = index  # the transaction's instruction that failed, where known


@dataclass(frozen=True)
class Call:
    """One instruction of a transaction as a player sees it."""

    index: int  # its place in the transaction
    program: Pubkey
    data: bytes
    accounts: tuple[AccountMeta, ...]

    def key(self, at: int) -> Pubkey:
        if at >= len(self.accounts):
            raise Refused("NotEnoughAccountKeys", f"account {at} of the instruction is missing")
        return self.accounts[at].pubkey


Player = Callable[["Play", Call], None]


@dataclass
class Play:
    """What a player works with: the chain, who signed, and the accounts it writes (each
    kept as it was first, to put back if the transaction fails)."""

    chain: Chain
    signers: frozenset[Pubkey]
    logs: list[str] = field(default_factory=list)
    before: dict[Pubkey, Account | None] = field(default_factory=dict)

    def account(self, key: Pubkey) -> Account | None:
        return self.chain.account(key)

    def write(self, key: Pubkey, account: Account) -> None:
        if key not in self.before:
            self.before[key] = self.chain.account(key)
        self.chain.set_account(key, account)

    def lamports(self, key: Pubkey) -> int:
        found = self.account(key)
        return found.lamports if found is not None else 0

    def move(self, source: Pubkey, target: Pubkey, lamports: int) -> None:
        """`lamports` from `source` to `target` (the System program's rule: the source must
        hold them)."""
        held = self.account(source)
        if held is None or held.lamports < lamports:
            raise Refused({"Custom": 1}, f"{source} holds too few lamports for {lamports}")
        self.write(source, _with_lamports(held, held.lamports - lamports))
        target_account = self.account(target) or Account(0, b"", p.SYSTEM_PROGRAM, False, 0)
        self.write(target, _with_lamports(target_account, target_account.lamports + lamports))

    def make(self, key: Pubkey, owner: Pubkey, data: bytes, payer: Pubkey) -> None:
        """A new account holding `data`, owned by `owner`, its rent paid by `payer`: a
        program's CPI to the System program's CreateAccount."""
        if self.account(key) is not None:
            raise Refused({"Custom": 0}, f"account {key} already in use")
        if payer not in self.signers:
            raise Refused("MissingRequiredSignature", f"payer {payer} did not sign")
        rent = self.chain.rent_exempt(len(data))
        self.move(payer, key, rent)
        self.write(key, Account(rent, data, owner, False, 0))

    def resize(self, key: Pubkey, data: bytes, payer: Pubkey) -> None:
        """An account's new data, of another size: the rent it then needs paid by `payer`."""
        held = self.account(key)
        if held is None:
            raise Refused("UninitializedAccount", f"account {key} does not exist")
        short = self.chain.rent_exempt(len(data)) - held.lamports
        if short > 0:
            self.move(payer, key, short)
        self.set_data(key, data)

    def set_data(self, key: Pubkey, data: bytes) -> None:
        """An account's new data (its owner the program writing it)."""
        held = self.account(key)
        if held is None:
            raise Refused("UninitializedAccount", f"account {key} does not exist")
        self.write(key, Account(held.lamports, data, held.owner, held.executable, 0))

    def run_real(self, calls: list[Call], payer: Pubkey) -> None:
        """Instructions of programs that run here, run by LiteSVM as one transaction (its
        fee given back): their first failure is refused at its own index."""
        ixs = [Instruction(c.program, c.data, list(c.accounts)) for c in calls]
        for call in calls:
            for meta in call.accounts:
                if meta.is_writable and meta.pubkey not in self.before:
                    self.before[meta.pubkey] = self.chain.account(meta.pubkey)
        if payer not in self.before:
            self.before[payer] = self.chain.account(payer)
        message = Message.new_with_blockhash(ixs, payer, self.chain.latest_blockhash()[0])
        count = message.header.num_required_signatures
        tx = VersionedTransaction.populate(message, [Signature.new_unique() for _ in range(count)])
        result = self.chain.svm.send_transaction(tx)
        logs, _ = meta_of(
            result.meta() if isinstance(result, FailedTransactionMetadata) else result
        )
        self.logs += logs
        if isinstance(result, FailedTransactionMetadata):
            err = err_json(result)
            if isinstance(err, dict) and "InstructionError" in err:
                at, inner = err["InstructionError"]
                raise Refused(inner, f"instruction {calls[at].index} failed", calls[at].index)
            raise Refused(err, f"instructions from {calls[0].index} failed", calls[0].index)
        payer_account = self.chain.account(payer)
        if payer_account is not None:  # the part's fee back: the transaction's was paid
            refund = payer_account.lamports + LAMPORTS_PER_SIGNATURE * count
            self.chain.set_account(payer, _with_lamports(payer_account, refund))

    def put_back(self) -> None:
        for key, account in self.before.items():
            self.chain.set_account(key, account or Account(0, b"", p.SYSTEM_PROGRAM, False, 0))
        self.before.clear()


def _with_lamports(account: Account, lamports: int) -> Account:
    return Account(lamports, account.data, account.owner, account.executable, account.rent_epoch)


@dataclass(frozen=True)
class Played:
    """A transaction the sandbox plays: `apply` lands it, `simulate` only tries it."""

    payer: Pubkey
    fee: int
    signers: frozenset[Pubkey]
    calls: tuple[Call, ...]
    players: Mapping[Pubkey, Player]
    logs: list[str] = field(default_factory=list)

    def apply(self, chain: Chain) -> Any:
        """Made on `chain`: None when it succeeded, else the error a node reports."""
        if _lamports(chain, self.payer) < self.fee:
            return "InsufficientFundsForFee"
        paid = _held(chain, self.payer)
        chain.set_account(self.payer, _with_lamports(paid, paid.lamports - self.fee))
        play = Play(chain, self.signers)
        error = self._run(play)
        if error is not None:
            play.put_back()
        self.logs[:] = play.logs
        return error

    def simulate(
        self, chain: Chain, addresses: Sequence[Pubkey] = ()
    ) -> tuple[Any, list[str], list[Account | None]]:
        """What `apply` would answer, its logs, and `addresses`' accounts as it would leave
        them; the chain left as it was."""
        if _lamports(chain, self.payer) < self.fee:
            return "InsufficientFundsForFee", [], []
        play = Play(chain, self.signers)
        try:
            error = self._run(play)
            return error, play.logs, [chain.account(key) for key in addresses]
        finally:
            play.put_back()

    def _run(self, play: Play) -> Any:
        pending: list[Call] = []  # instructions of programs that run here, not yet run
        try:
            for call in self.calls:
                player = self.players.get(call.program)
                if player is None:
                    pending.append(call)
                    continue
                if pending:
                    play.run_real(pending, self.payer)
                    pending = []
                play.logs.append(f"Program {call.program} invoke [1] (played by the sandbox)")
                try:
                    player(play, call)
                except Refused as refused:
                    play.logs.append(f"Program {call.program} failed: {refused}")
                    raise Refused(refused.error, str(refused), call.index) from None
                play.logs.append(f"Program {call.program} success")
            if pending:
                play.run_real(pending, self.payer)
        except Refused as refused:
            return {"InstructionError": [refused.index or 0, refused.error]}
        return None


def _held(chain: Chain, key: Pubkey) -> Account:
    return chain.account(key) or Account(0, b"", p.SYSTEM_PROGRAM, False, 0)


def _lamports(chain: Chain, key: Pubkey) -> int:
    return _held(chain, key).lamports


def played(
    tx: VersionedTransaction, keys: list[Pubkey], players: Mapping[Pubkey, Player]
) -> Played | None:
    """`tx` as the sandbox plays it, when an instruction of it is of a played program
    (`keys`: every account it loads, its lookup tables' included); None otherwise."""
    message = tx.message
    programs = [keys[ix.program_id_index] for ix in message.instructions]
    if not any(program in players for program in programs):
        return None
    writable = _writable(message, len(keys))
    signed = message.header.num_required_signatures
    calls = tuple(
        Call(
            index,
            programs[index],
            bytes(ix.data),
            tuple(AccountMeta(keys[i], i < signed, writable[i]) for i in bytes(ix.accounts)),
        )
        for index, ix in enumerate(message.instructions)
    )
    signers = frozenset(keys[:signed])
    fee = LAMPORTS_PER_SIGNATURE * len(tx.signatures)
    return Played(keys[0], fee, signers, calls, players)


def _writable(message: Any, count: int) -> list[bool]:
    """Which of the transaction's accounts it may write, by its header and lookups."""
    header = message.header
    static = len(message.account_keys)
    signed, readonly_signed = header.num_required_signatures, header.num_readonly_signed_accounts
    readonly_unsigned = header.num_readonly_unsigned_accounts
    flags = [
        i < signed - readonly_signed if i < signed else i < static - readonly_unsigned
        for i in range(static)
    ]
    if isinstance(message, MessageV0):
        looked_up = sum(len(lookup.writable_indexes) for lookup in message.address_table_lookups)
        flags += [i < looked_up for i in range(count - static)]
    return flags


__all__ = ["Call", "Play", "Played", "Player", "Refused", "played"]
