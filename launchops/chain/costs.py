"""What a launch cost its creator, read from the chain: each landed transaction's
balance change for the creator's account (`getTransaction`'s `preBalances` and
`postBalances`), summed. Fees, the rent of what the launch made, a tip, a first buy the
creator makes: whatever left the account, not what launchops expected to leave it."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Sequence
from typing import Any

from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcGone, RpcRefused, RpcUnavailable

Meta = tuple[list[Pubkey], list[int], list[int]]
ASKS = 3  # a node a moment behind the landing answers null: asked again, then unknown


async def paid_by(
    rpc: ChainRpc, signatures: Sequence[Signature], payer: Pubkey, wait: float = 0.5
) -> int | None:
    """The lamports that left `payer` in the transactions behind `signatures` (all
    landed); None when a node cannot say for one of them."""
    total = 0
    for signature in signatures:
        paid = None
        for ask in range(ASKS):
            paid = await _paid_in(rpc, signature, payer)
            if paid is not None:
                break
            if ask + 1 < ASKS:
                await asyncio.sleep(wait)
        if paid is None:
            return None
        total += paid
    return total


async def _paid_in(rpc: ChainRpc, signature: Signature, payer: Pubkey) -> int | None:
    config = {"encoding": "base64", "commitment": "confirmed", "maxSupportedTransactionVersion": 0}
    try:
        meta, _ = await rpc.call("getTransaction", [str(signature), config], _meta, retry=False)
    except RpcGone:
        raise
    except (RpcRefused, RpcUnavailable):
        return None
    if meta is None:
        return None
    keys, pre, post = meta
    if payer not in keys or not len(pre) == len(post) == len(keys):
        return None  # a node that keeps no balances: not known
    index = keys.index(payer)
    return pre[index] - post[index]


def _meta(value: Any) -> Meta | None:
    """The accounts a landed transaction loaded (its own, then its tables'), with their
    balances before and after."""
    if value is None:
        return None
    raw = base64.b64decode(value["transaction"][0], validate=True)
    keys = list(VersionedTransaction.from_bytes(raw).message.account_keys)
    meta = value["meta"]
    loaded = meta.get("loadedAddresses") or {}
    keys += [
        Pubkey.from_string(k) for k in [*loaded.get("writable", ()), *loaded.get("readonly", ())]
    ]
    return keys, [int(x) for x in meta["preBalances"]], [int(x) for x in meta["postBalances"]]


__all__ = ["paid_by"]
