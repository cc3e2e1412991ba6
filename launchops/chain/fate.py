"""Whether the transactions of a create are provably dead: the one rule that decides a
create again, held against stale answers.

Dead means: the chain's block height is past the blockhash's `lastValidBlockHeight`, and,
asked at a slot at least as high as the one where that height was seen, none of the
signatures is found and none of the accounts the create makes (its mint, its genesis
account) exists. A node behind a load balancer may answer "not found" from a slot before
the transaction landed: an answer whose context slot is older than the slot the height
was seen at proves nothing, and the verdict is `UNKNOWN` (ask again later), never `DEAD`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from solders.pubkey import Pubkey
from solders.signature import Signature

from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcUnavailable


class Fate(StrEnum):
    ALIVE = "alive"  # its blockhash is still valid, or something of it is on chain
    DEAD = "dead"  # provably: nothing of it landed and nothing of it ever can
    UNKNOWN = "unknown"  # the answers were too old to tell: ask again


async def fate(
    rpc: ChainRpc,
    signatures: Sequence[Signature],
    last_valid_block_height: int,
    accounts: Sequence[Pubkey] = (),
) -> Fate:
    """Where the transactions behind `signatures` (valid up to `last_valid_block_height`,
    making `accounts`) stand, from answers no older than the expiry seen."""
    seen = await rpc.epoch()
    if seen.block_height <= last_valid_block_height:
        return Fate.ALIVE
    view = await rpc.statuses_at(signatures)
    if any(landing is not None for landing in view.landings):
        return Fate.ALIVE
    if view.context_slot is None or view.context_slot < seen.slot:
        return Fate.UNKNOWN  # a node behind the one that saw the expiry
    if accounts:
        try:
            found, slot = await rpc.existing(accounts, min_context_slot=seen.slot)
        except RpcUnavailable as exc:
            if exc.code == -32016:  # that node has not reached the slot yet
                return Fate.UNKNOWN
            raise
        if any(found):
            return Fate.ALIVE
        if slot is None or slot < seen.slot:
            return Fate.UNKNOWN
    return Fate.DEAD


__all__ = ["Fate", "fate"]
