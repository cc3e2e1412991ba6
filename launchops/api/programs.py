"""The on-chain half of the contract: program ids, PDAs and the account and instruction
layouts that both the client (checking what it signs) and the sandbox (building and
reading state) rely on. Layouts from the shared notes (genesis-api.md, service-facts.md).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from launchops.genesis.pdas import (  # the program ids Genesis names too
    ASSOCIATED_TOKEN_PROGRAM as ASSOCIATED_TOKEN_PROGRAM,
)
from launchops.genesis.pdas import GENESIS_PROGRAM as GENESIS_PROGRAM
from launchops.genesis.pdas import NATIVE_MINT as NATIVE_MINT
from launchops.genesis.pdas import SYSTEM_PROGRAM as SYSTEM_PROGRAM
from launchops.genesis.pdas import TOKEN_PROGRAM as TOKEN_PROGRAM
from launchops.genesis.pdas import associated_token_address

TOKEN_2022_PROGRAM = Pubkey.from_string("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
MEMO_PROGRAM = Pubkey.from_string("MemoSq4gqABAXKb96qzC7pqaMYpTSYz7yeWnV8ekRNf")
COMPUTE_BUDGET_PROGRAM = Pubkey.from_string("ComputeBudget111111111111111111111111111111")
MPL_CORE_PROGRAM = Pubkey.from_string("CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d")

# Which cluster an RPC serves, by the genesis hash it answers (public-service-now.md).
GENESIS_HASHES = {
    "mainnet-beta": "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
    "devnet": "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG",
    "testnet": "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY",
}
NETWORK_CLUSTERS = {"solana-mainnet": "mainnet-beta", "solana-devnet": "devnet"}


def cluster_of(genesis_hash: str) -> str | None:
    """The cluster whose genesis hash this is (mainnet-beta, devnet, testnet), else None."""
    return next((name for name, h in GENESIS_HASHES.items() if h == genesis_hash), None)


EXECUTE_DISCRIMINATOR = 31
SYSTEM_TRANSFER = 2
MINT_BASE_SIZE = 82
ACCOUNT_TYPE_OFFSET = 165
TOKEN_METADATA_EXTENSION = 19


def token_account_address(owner: Pubkey, mint: Pubkey, program: Pubkey = TOKEN_PROGRAM) -> Pubkey:
    """The associated token account of `owner` for `mint` (owners may be PDAs); classic
    SPL Token unless `program` says Token-2022."""
    return associated_token_address(owner, mint, program)


def native_mint_data() -> bytes:
    """Wrapped SOL's mint as every cluster has it: no authorities, 9 decimals, initialized."""
    return bytes(36) + bytes(8) + bytes([9, 1]) + bytes(36)


def agent_wallet(asset: Pubkey) -> Pubkey:
    """An agent's wallet: the mpl-core asset-signer PDA of its asset."""
    return Pubkey.find_program_address([b"mpl-core-execute", bytes(asset)], MPL_CORE_PROGRAM)[0]


# ── instructions ────────────────────────────────────────────────────────────


def _lp_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<I", len(data)) + data


def memo(text: str, signer: Pubkey) -> Instruction:
    """An SPL Memo instruction carrying `text` (UTF-8), signed by `signer`."""
    return Instruction(MEMO_PROGRAM, text.encode(), [AccountMeta(signer, True, False)])


def execute(
    asset: Pubkey, payer: Pubkey, authority: Pubkey, inner: Instruction, collection: Pubkey | None
) -> Instruction:
    """mpl-core Execute: the asset signer PDA signs `inner` (service-facts.md, layout)."""
    signer = agent_wallet(asset)
    data = bytes([EXECUTE_DISCRIMINATOR]) + struct.pack("<I", len(inner.data)) + bytes(inner.data)
    accounts = [
        AccountMeta(asset, False, True),
        AccountMeta(collection or MPL_CORE_PROGRAM, False, collection is not None),
        AccountMeta(signer, False, False),
        AccountMeta(payer, True, True),
        AccountMeta(authority, True, False),
        AccountMeta(SYSTEM_PROGRAM, False, False),
        AccountMeta(inner.program_id, False, False),
    ]
    inner_accounts = [
        AccountMeta(a.pubkey, False if a.pubkey == signer else a.is_signer, a.is_writable)
        for a in inner.accounts
    ]
    return Instruction(MPL_CORE_PROGRAM, data, accounts + inner_accounts)


# ── accounts ────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class MintState:
    """A mint as `read_mint` reads it: supply in base units, decimals, authorities (None
    when unset), and the name, symbol, uri and update authority of its Token-2022
    metadata (None without it)."""

    supply: int
    decimals: int
    mint_authority: Pubkey | None
    freeze_authority: Pubkey | None
    name: str | None = None
    symbol: str | None = None
    uri: str | None = None
    update_authority: Pubkey | None = None


def _coption_key(data: bytes, offset: int) -> Pubkey | None:
    tag = int.from_bytes(data[offset : offset + 4], "little")
    return Pubkey.from_bytes(data[offset + 4 : offset + 36]) if tag else None


def read_mint(data: bytes) -> MintState:
    """An SPL mint, with its Token-2022 metadata extension when it has one."""
    if len(data) < MINT_BASE_SIZE:
        raise ValueError("not a mint account")
    base = {
        "mint_authority": _coption_key(data, 0),
        "supply": int.from_bytes(data[36:44], "little"),
        "decimals": data[44],
        "freeze_authority": _coption_key(data, 46),
    }
    offset = ACCOUNT_TYPE_OFFSET + 1
    while offset + 4 <= len(data):
        kind, length = struct.unpack_from("<HH", data, offset)
        value = data[offset + 4 : offset + 4 + length]
        if kind == TOKEN_METADATA_EXTENSION:
            update = Pubkey.from_bytes(value[:32])
            cursor = 64
            fields = []
            for _ in range(3):
                (size,) = struct.unpack_from("<I", value, cursor)
                fields.append(value[cursor + 4 : cursor + 4 + size].decode())
                cursor += 4 + size
            name, symbol, uri = fields
            unset = update == Pubkey.default()
            return MintState(
                **base,
                name=name,
                symbol=symbol,
                uri=uri,
                update_authority=None if unset else update,
            )
        if kind == 0:
            break
        offset += 4 + length
    return MintState(**base)


@dataclass(frozen=True)
class TokenAccountState:
    """A token account as `read_token_account` reads it: its mint, its owner, and
    `amount` in base units."""

    mint: Pubkey
    owner: Pubkey
    amount: int


def read_token_account(data: bytes) -> TokenAccountState:
    """An SPL or Token-2022 token account's mint, owner and amount; ValueError when
    `data` is too short to be one."""
    if len(data) < 72:
        raise ValueError("not a token account")
    return TokenAccountState(
        mint=Pubkey.from_bytes(data[:32]),
        owner=Pubkey.from_bytes(data[32:64]),
        amount=int.from_bytes(data[64:72], "little"),
    )


ASSET_V1_KEY = 1


def asset_data(owner: Pubkey, update_authority: Pubkey, name: str, uri: str) -> bytes:
    """An mpl-core AssetV1 account: key, owner, update authority (address), name, uri, seq."""
    return (
        bytes([ASSET_V1_KEY])
        + bytes(owner)
        + bytes([1])
        + bytes(update_authority)
        + _lp_string(name)
        + _lp_string(uri)
        + bytes([0])
    )


def asset_owner(data: bytes) -> Pubkey:
    """The owner of an mpl-core AssetV1 account; ValueError when `data` is not one."""
    if len(data) < 33 or data[0] != ASSET_V1_KEY:
        raise ValueError("not an mpl-core asset")
    return Pubkey.from_bytes(data[1:33])
