"""The second line: what the chain says a transaction does with SOL, asked before its
first send.

The reader (`launchops.chain.reader`) holds each instruction against the file; this
asks the chain instead. The signed transaction is simulated against the chain as it is
then (`simulateTransaction`, the accounts it loads returned as it would leave them) and
every account it would pay is held to a bound: an account may gain the rent of what it
becomes (its growth up to the rent-exempt minimum of its size: an account made or grown),
the program's fee wallet and its token account what the program charges, and all of
them together, beyond that, no more than what the file itself spends (its first buy).
More is refused, naming the account paid: a gap in the reader, or a program doing what
its instruction's name does not say, is caught here.

The accounts as they are now are read from a node at least as far along as the one that
simulated (`minContextSlot`); other launches of the same creator landing meanwhile touch
the creator and the fee accounts, which are not held to the bound, not these. A breach
is asked twice, and refused only when both answers agree: a lying or lagging node's
answer is not a theft. A simulation that fails, or a node that returns no accounts,
decides nothing (the send's preflight and the chain do).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from solders.pubkey import Pubkey

from launchops.api import programs as p
from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcGone, RpcRefused, RpcUnavailable, TransactionRefused
from launchops.genesis.pdas import FEE_WALLET

LAMPORTS_PER_SOL = 1_000_000_000
# Where the program's fees go (its docs name them): what they are paid is the program's.
FEE_ACCOUNTS = (FEE_WALLET, p.token_account_address(FEE_WALLET, p.NATIVE_MINT))


def rent_exempt(size: int) -> int:
    """The rent-exempt minimum of an account of `size` bytes (the cluster's default rent:
    3,480 lamports a byte-year, two years, 128 bytes of overhead)."""
    return (128 + size) * 3480 * 2


async def read_effects(
    rpc: ChainRpc,
    raw: bytes,
    number: int,
    creator: Pubkey,
    keys: Sequence[Pubkey],
    spends: int = 0,
) -> None:
    """Refuse (`TransactionRefused`) transaction `number` (from 1) when its simulation
    pays any of `keys` (every account it loads) more than the rent of what it becomes,
    beyond `spends` (what the file itself spends in it) in all; asked twice."""
    keys = list(dict.fromkeys(keys))
    first = await _overpaid(rpc, raw, keys, creator, spends)
    if first is None or await _overpaid(rpc, raw, keys, creator, spends) != first:
        return
    paid, key, lamports = first
    raise TransactionRefused(
        f"transaction {number}: the chain's simulation has it pay {_sol(lamports)} SOL to "
        f"{key} ({_sol(paid)} SOL in all beyond the rent of what it makes), more than the "
        f"file spends ({_sol(spends)} SOL): nothing sent"
    )


async def _overpaid(
    rpc: ChainRpc, raw: bytes, keys: list[Pubkey], creator: Pubkey, spends: int
) -> tuple[int, Pubkey, int] | None:
    """What the simulation pays beyond rent in all, and to whom most, when more than
    `spends`; None when within, or when the chain cannot say."""
    try:
        simulated = await _simulated(rpc, raw, keys)
        if simulated is None:
            return None
        after, slot = simulated
        before = await _lamports(rpc, keys, slot)
    except RpcGone:
        raise
    except (RpcRefused, RpcUnavailable):
        return None  # the node cannot say: the preflight and the chain decide
    beyond = {
        key: lamports - held - max(0, min(lamports, rent_exempt(size)) - held)
        for key, held, (lamports, size) in zip(keys, before, after, strict=True)
        if key not in (creator, *FEE_ACCOUNTS)
    }
    paid = sum(max(0, extra) for extra in beyond.values())
    if paid <= spends:
        return None
    key = max(beyond, key=lambda k: beyond[k])
    return paid, key, beyond[key]


def _sol(lamports: int) -> str:
    return f"{lamports / LAMPORTS_PER_SOL:.9f}".rstrip("0").rstrip(".")


async def _lamports(rpc: ChainRpc, keys: list[Pubkey], slot: int | None) -> list[int]:
    """Each of `keys`' lamports now, from a node at least at `slot`."""
    config: dict[str, Any] = {
        "encoding": "base64",
        "commitment": "confirmed",
        "dataSlice": {"offset": 0, "length": 0},
    }
    if slot is not None:
        config["minContextSlot"] = slot

    def held(value: Any) -> list[int]:
        if not isinstance(value, list) or len(value) != len(keys):
            raise ValueError("expected one account a key")
        return [int(a["lamports"]) if a else 0 for a in value]

    # A node behind `slot` answers -32016 at once, not asked again: the send does not wait
    # for it (its blockhash lives on); the check is only skipped.
    params = [[str(k) for k in keys], config]
    return (await rpc.call("getMultipleAccounts", params, held, retry=slot is None))[0]


async def _simulated(
    rpc: ChainRpc, raw: bytes, keys: list[Pubkey]
) -> tuple[list[tuple[int, int]], int | None] | None:
    """Each of `keys` as the simulation would leave it (lamports, size), and the slot it
    was simulated at; None when it failed or the node returned no accounts."""
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
    after, slot = await rpc.call("simulateTransaction", [encoded, config], shaped)
    return None if after is None else (after, slot)


def _size(account: Any) -> tuple[int, int]:
    if account is None:
        return 0, 0
    return int(account["lamports"]), len(base64.b64decode(account["data"][0], validate=True))


__all__ = ["read_effects", "rent_exempt"]
