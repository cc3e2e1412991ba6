"""SPL Token accounts as the token program lays them out, for what the sandbox's played
programs write by CPI in the real ones: a mint (82 bytes) and a token account (165 bytes).
`launchops.api.programs` reads them back (`read_mint`, `read_token_account`)."""

from __future__ import annotations

import struct

from solders.pubkey import Pubkey

from launchops.api import programs as p

MINT_SIZE = 82
ACCOUNT_SIZE = 165
INITIALIZED = 1


def _coption(key: Pubkey | None) -> bytes:
    return struct.pack("<I", 1) + bytes(key) if key is not None else bytes(36)


def mint_data(authority: Pubkey | None, supply: int, decimals: int, freeze: Pubkey | None) -> bytes:
    return _coption(authority) + struct.pack("<QBB", supply, decimals, 1) + _coption(freeze)


def with_mint_authorities(data: bytes, authority: Pubkey | None, freeze: Pubkey | None) -> bytes:
    """The mint `data` with its mint and freeze authorities set (None: revoked)."""
    return _coption(authority) + data[36:46] + _coption(freeze)


def with_supply(data: bytes, supply: int) -> bytes:
    return data[:36] + struct.pack("<Q", supply) + data[44:]


def token_account_data(
    mint: Pubkey, owner: Pubkey, amount: int, native_rent: int | None = None
) -> bytes:
    """An initialized token account; a wrapped SOL one (`native_rent`: its rent reserve)
    says so as the program does (`is_native`)."""
    native = struct.pack("<IQ", 1, native_rent) if native_rent is not None else bytes(12)
    return (
        bytes(mint)
        + bytes(owner)
        + struct.pack("<Q", amount)
        + bytes(36)  # no delegate
        + bytes([INITIALIZED])
        + native
        + struct.pack("<Q", 0)  # delegated amount
        + bytes(36)  # no close authority
    )


def with_amount(data: bytes, amount: int) -> bytes:
    return data[:64] + struct.pack("<Q", amount) + data[72:]


def is_native(mint: Pubkey) -> bool:
    return mint == p.NATIVE_MINT


__all__ = [
    "ACCOUNT_SIZE",
    "MINT_SIZE",
    "is_native",
    "mint_data",
    "token_account_data",
    "with_amount",
    "with_mint_authorities",
    "with_supply",
]
