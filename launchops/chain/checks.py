"""What launchops checks in a fund or withdraw transaction before it signs anything.

The service builds these transactions; the creator's key signs them. So each is read
instruction by instruction first: the money goes where it was asked, in the amount asked,
nothing else moves funds, and nobody else signs. Anything else is refused, unsigned.

A v0 transaction may load accounts from address lookup tables: the caller resolves the
tables over RPC first (`Tables`) and every account index is read through them.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

from solders.instruction import CompiledInstruction
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.chain.signing import required_signers
from launchops.errors import TransactionRefused

MEMO_PROGRAMS = frozenset(
    {p.MEMO_PROGRAM, Pubkey.from_string("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")}
)


Tables = Mapping[Pubkey, Sequence[Pubkey]]
"""The addresses of each lookup table a transaction uses, by the table's address."""


def lookup_tables(tx: VersionedTransaction) -> list[Pubkey]:
    """The lookup tables a transaction loads accounts from (none but for v0)."""
    message = tx.message
    if not isinstance(message, MessageV0):
        return []
    return [lookup.account_key for lookup in message.address_table_lookups]


def account_keys(tx: VersionedTransaction, tables: Tables | None = None) -> list[Pubkey]:
    """Every account the transaction's indexes point at: its own keys, then the writable
    then the read-only addresses it loads from its lookup tables."""
    message = tx.message
    keys = list(message.account_keys)
    if not isinstance(message, MessageV0) or not message.address_table_lookups:
        return keys
    writable: list[Pubkey] = []
    readonly: list[Pubkey] = []
    for lookup in message.address_table_lookups:
        table = (tables or {}).get(lookup.account_key)
        if table is None:
            raise TransactionRefused(
                f"the transaction loads accounts from lookup table {lookup.account_key}, "
                "which was not found on the chain"
            )
        indexes = [*lookup.writable_indexes, *lookup.readonly_indexes]
        if any(i >= len(table) for i in indexes):
            raise TransactionRefused(
                f"the transaction reads past the end of lookup table {lookup.account_key}"
            )
        writable += [table[i] for i in lookup.writable_indexes]
        readonly += [table[i] for i in lookup.readonly_indexes]
    return keys + writable + readonly


def _accounts(
    keys: list[Pubkey], ix: CompiledInstruction, index: int, at_least: int
) -> list[Pubkey]:
    """The instruction's accounts, refused when it names too few or one out of range."""
    indexes = list(ix.accounts)
    if len(indexes) < at_least or any(i >= len(keys) for i in indexes):
        raise TransactionRefused(f"instruction {index + 1} names too few or unknown accounts")
    return [keys[i] for i in indexes]


def _transfer(data: bytes) -> int | None:
    """Lamports of a System transfer instruction's data, else None."""
    if len(data) == 12 and struct.unpack_from("<I", data)[0] == p.SYSTEM_TRANSFER:
        return struct.unpack_from("<Q", data, 4)[0]
    return None


def check_fund(
    tx: VersionedTransaction,
    *,
    agent: Pubkey,
    sender: Pubkey,
    lamports: int,
    memo: str,
    tables: Tables | None = None,
) -> None:
    """Refuse (`TransactionRefused`) a fund that is not exactly one System transfer of
    `lamports` from `sender` to `agent`'s wallet and one memo of `memo`, with `sender`
    the only signer; compute-budget instructions pass."""
    wallet = p.agent_wallet(agent)
    _only_signer(tx, sender)
    keys = account_keys(tx, tables)
    transfers, memos = 0, 0
    for index, ix in enumerate(tx.message.instructions):
        program = keys[ix.program_id_index]  # a called program is never in a table
        data = bytes(ix.data)
        if program == p.COMPUTE_BUDGET_PROGRAM:
            continue
        if program == p.SYSTEM_PROGRAM and _transfer(data) is not None:
            amount = _transfer(data)
            accounts = _accounts(keys, ix, index, 2)
            if accounts[:2] != [sender, wallet]:
                raise TransactionRefused(
                    f"instruction {index + 1} moves funds from {accounts[0]} to {accounts[1]}, "
                    f"not from {sender} to the agent's wallet {wallet}"
                )
            if amount != lamports:
                raise TransactionRefused(
                    f"instruction {index + 1} moves {amount} lamports, not {lamports}"
                )
            transfers += 1
        elif program in MEMO_PROGRAMS:
            if data.decode(errors="replace") != memo:
                raise TransactionRefused(f"the memo is {data[:80]!r}, not {memo!r}")
            memos += 1
        else:
            raise TransactionRefused(
                f"instruction {index + 1} calls {program}, which a fund does not need"
            )
    if transfers != 1 or memos != 1:
        raise TransactionRefused(
            f"a fund is one transfer and one memo; this has {transfers} and {memos}"
        )


def check_withdraw(
    tx: VersionedTransaction,
    *,
    agent: Pubkey,
    sender: Pubkey,
    lamports: int,
    tables: Tables | None = None,
) -> None:
    """Refuse (`TransactionRefused`) a withdraw that is not exactly one mpl-core Execute
    by which `agent`'s wallet transfers `lamports` to `sender`, its owner and the only
    signer; compute-budget instructions pass."""
    wallet = p.agent_wallet(agent)
    _only_signer(tx, sender)
    keys = account_keys(tx, tables)
    executes = 0
    for index, ix in enumerate(tx.message.instructions):
        program = keys[ix.program_id_index]
        if program == p.COMPUTE_BUDGET_PROGRAM:
            continue
        if program != p.MPL_CORE_PROGRAM:
            raise TransactionRefused(
                f"instruction {index + 1} calls {program}, which a withdraw does not need"
            )
        accounts = _accounts(keys, ix, index, 9)
        data = bytes(ix.data)
        if not data or data[0] != p.EXECUTE_DISCRIMINATOR or len(data) < 5:
            raise TransactionRefused(f"instruction {index + 1} is not an mpl-core Execute")
        inner = data[5 : 5 + struct.unpack_from("<I", data, 1)[0]]
        amount = _transfer(inner)
        if (
            accounts[0] != agent
            or accounts[2] != wallet
            or accounts[3] != sender
            or accounts[4] != sender
        ):
            raise TransactionRefused(
                f"instruction {index + 1} executes for another asset, wallet or owner"
            )
        if accounts[6] != p.SYSTEM_PROGRAM or amount is None:
            raise TransactionRefused(
                f"instruction {index + 1} executes something other than a transfer"
            )
        if accounts[7:9] != [wallet, sender]:
            raise TransactionRefused(
                f"the transfer goes from {accounts[7]} to {accounts[8]}, not to {sender}"
            )
        if amount != lamports:
            raise TransactionRefused(f"the transfer moves {amount} lamports, not {lamports}")
        executes += 1
    if executes != 1:
        raise TransactionRefused(f"a withdraw is one Execute; this has {executes}")


def _only_signer(tx: VersionedTransaction, sender: Pubkey) -> None:
    signers = required_signers(tx)
    if signers != [sender]:
        others = ", ".join(str(s) for s in signers if s != sender) or "none"
        raise TransactionRefused(f"the transaction needs signers other than {sender}: {others}")
