"""The transaction formats the sandbox builds, as its `tx_format` setting says: legacy,
v0, v0 with an address lookup table (`v0-alt`), or v1 (SIMD-0385). Nothing public says
which one the service sends, so a client must take each; the sandbox can send each.

For `v0-alt` the sandbox writes a real lookup table on its chain (frozen, active at
once) holding every account of the transactions that may sit in one: neither a signer
nor a program that is called. The chain resolves it when the transaction lands, and so
must a client that reads what the transaction moves.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Literal

from solders.account import Account
from solders.address_lookup_table_account import ID as LOOKUP_TABLE_PROGRAM
from solders.address_lookup_table_account import AddressLookupTableAccount
from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message, MessageV0, MessageV1, TransactionConfig
from solders.pubkey import Pubkey

TxFormat = Literal["legacy", "v0", "v0-alt", "v1"]
TX_FORMATS: tuple[TxFormat, ...] = ("legacy", "v0", "v0-alt", "v1")
AnyMessage = Message | MessageV0 | MessageV1
_LOOKUP_TABLE_TYPE = 1  # ProgramState::LookupTable
_NEVER_DEACTIVATED = 2**64 - 1


def lookup_table_data(addresses: Sequence[Pubkey], authority: Pubkey | None = None) -> bytes:
    """A lookup table account: its 56-byte meta (all addresses active at once: the last
    extension's start index is their count), then the addresses."""
    meta = struct.pack("<IQQB", _LOOKUP_TABLE_TYPE, _NEVER_DEACTIVATED, 0, len(addresses))
    owner = bytes([1]) + bytes(authority) if authority else bytes(33)
    return meta + owner + bytes(2) + b"".join(bytes(a) for a in addresses)


def table_candidates(groups: Sequence[Sequence[Instruction]]) -> list[Pubkey]:
    """Every account that may sit in a lookup table: not a signer, not a called program."""
    metas = [meta for ixs in groups for ix in ixs for meta in ix.accounts]
    excluded = {ix.program_id for ixs in groups for ix in ixs}
    excluded |= {meta.pubkey for meta in metas if meta.is_signer}
    return list(dict.fromkeys(m.pubkey for m in metas if m.pubkey not in excluded))


def compile_message(
    tx_format: TxFormat,
    payer: Pubkey,
    instructions: Sequence[Instruction],
    blockhash: Hash,
    table: AddressLookupTableAccount | None = None,
) -> AnyMessage:
    """One message in the format asked; `table` only for `v0-alt`."""
    ixs = list(instructions)
    if tx_format == "legacy":
        return Message.new_with_blockhash(ixs, payer, blockhash)
    v0 = MessageV0.try_compile(payer, ixs, [table] if table else [], blockhash)
    if tx_format != "v1":
        return v0
    return MessageV1(v0.header, TransactionConfig(), blockhash, v0.account_keys, v0.instructions)


def new_table(addresses: Sequence[Pubkey], rent: int) -> tuple[Pubkey, Account]:
    """A fresh, frozen lookup table account at a new address, rent paid."""
    data = lookup_table_data(addresses)
    return Keypair().pubkey(), Account(rent, data, LOOKUP_TABLE_PROGRAM, False)


__all__ = [
    "LOOKUP_TABLE_PROGRAM",
    "TX_FORMATS",
    "AnyMessage",
    "TxFormat",
    "compile_message",
    "lookup_table_data",
    "new_table",
    "table_candidates",
]
