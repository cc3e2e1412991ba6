"""The second line: what the chain says a transaction does to the creator, asked before
its first send.

The reader (`launchops.chain.reader`) holds each instruction against the file; this
asks the chain instead. The signed transaction is simulated against the chain as it is
then (`simulateTransaction`, the accounts it loads returned as it would leave them), and
the SOL it would take from the creator is held to a bound: its fees (signatures and
priority), the rent of what it makes (each account's growth, up to the rent-exempt
minimum of its size: an account made or grown, not one paid), and what the file itself
spends (its first buy, when the creator is the buyer). More than that is refused: a gap
in the reader, or a program doing what its instruction's name does not say, is caught
here. A simulation that fails, or a node that returns no accounts, decides nothing (the
send's preflight and the chain do).
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Sequence
from typing import Any

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcGone, RpcRefused, RpcUnavailable, TransactionRefused

LAMPORTS_PER_SIGNATURE = 5000
LAMPORTS_PER_SOL = 1_000_000_000
MAX_UNITS = 1_400_000  # a transaction's compute limit at most
SET_LIMIT, SET_PRICE = 2, 3  # Compute Budget instructions


def rent_exempt(size: int) -> int:
    """The rent-exempt minimum of an account of `size` bytes (the cluster's default rent:
    3,480 lamports a byte-year, two years, 128 bytes of overhead)."""
    return (128 + size) * 3480 * 2


def fee_of(tx: VersionedTransaction) -> int:
    """The most the transaction's fees may be: its signatures, and its priority fee at its
    compute unit price over its limit (the most a transaction may ask, when it sets none)."""
    keys = tx.message.account_keys
    price, limit = 0, MAX_UNITS
    for ix in tx.message.instructions:
        data = bytes(ix.data)
        if keys[ix.program_id_index] != p.COMPUTE_BUDGET_PROGRAM or not data:
            continue
        if data[0] == SET_PRICE and len(data) >= 9:
            price = struct.unpack_from("<Q", data, 1)[0]
        elif data[0] == SET_LIMIT and len(data) >= 5:
            limit = min(struct.unpack_from("<I", data, 1)[0], MAX_UNITS)
    signatures = tx.message.header.num_required_signatures
    return LAMPORTS_PER_SIGNATURE * signatures + math.ceil(price * limit / 1_000_000)


async def read_effects(
    rpc: ChainRpc,
    raw: bytes,
    number: int,
    creator: Pubkey,
    keys: Sequence[Pubkey],
    spends: int = 0,
) -> None:
    """Refuse (`TransactionRefused`) transaction `number` (from 1) when its simulation has
    it take more SOL from `creator` than its fees, the rent of what it makes among `keys`
    (every account it loads) and `spends` (what the file itself spends in it)."""
    keys = list(dict.fromkeys(keys))
    try:
        before = await _lamports(rpc, keys)
        after = await _simulated(rpc, raw, keys)
    except RpcGone:
        raise
    except (RpcRefused, RpcUnavailable):
        return  # the node cannot say: the preflight and the chain decide
    if after is None or creator not in keys:
        return
    tx = VersionedTransaction.from_bytes(raw)
    rent = sum(
        max(0, min(lamports, rent_exempt(size)) - held)
        for key, held, (lamports, size) in zip(keys, before, after, strict=True)
        if key != creator
    )
    bound = fee_of(tx) + rent + spends
    index = keys.index(creator)
    taken = before[index] - after[index][0]
    if taken > bound:
        raise TransactionRefused(
            f"transaction {number}: the chain's simulation has it take {_sol(taken)} SOL "
            f"from the creator {creator}, more than its fees, the rent of what it makes and "
            f"what the file spends ({_sol(bound)} SOL at most): nothing sent"
        )


def _sol(lamports: int) -> str:
    return f"{lamports / LAMPORTS_PER_SOL:.9f}".rstrip("0").rstrip(".")


async def _lamports(rpc: ChainRpc, keys: list[Pubkey]) -> list[int]:
    config = {
        "encoding": "base64",
        "commitment": "confirmed",
        "dataSlice": {"offset": 0, "length": 0},
    }

    def held(value: Any) -> list[int]:
        if not isinstance(value, list) or len(value) != len(keys):
            raise ValueError("expected one account a key")
        return [int(a["lamports"]) if a else 0 for a in value]

    return (await rpc.call("getMultipleAccounts", [[str(k) for k in keys], config], held))[0]


async def _simulated(rpc: ChainRpc, raw: bytes, keys: list[Pubkey]) -> list[tuple[int, int]] | None:
    """Each of `keys` as the simulation would leave it (lamports, size); None when it
    failed or the node returned no accounts."""
    config = {
        "encoding": "base64",
        "sigVerify": True,
        "commitment": "confirmed",
        "accounts": {"encoding": "base64", "addresses": [str(k) for k in keys]},
    }

    def shaped(value: Any) -> list[tuple[int, int]] | None:
        accounts = value.get("accounts")
        if value.get("err") is not None or not isinstance(accounts, list):
            return None
        if len(accounts) != len(keys):
            raise ValueError("expected one account a key")
        return [_size(a) for a in accounts]

    encoded = base64.b64encode(raw).decode()
    return (await rpc.call("simulateTransaction", [encoded, config], shaped))[0]


def _size(account: Any) -> tuple[int, int]:
    if account is None:
        return 0, 0
    return int(account["lamports"]), len(base64.b64decode(account["data"][0], validate=True))


__all__ = ["fee_of", "read_effects", "rent_exempt"]
