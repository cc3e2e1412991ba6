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
    """The verdict of `fate` on a create's transactions: alive, provably dead (a create
    again is safe), or unknown (ask again later)."""

    ALIVE = "alive"  # its blockhash is still valid, or something of it is on chain
    DEAD = "dead"  # provably: nothing of it landed and nothing of it ever can
    UNKNOWN = "unknown"  # the answers were too old to tell: ask again


async def fate(
    rpc: ChainRpc,
    signatures: Sequence[Signature],
    last_valid_block_height: int,
    accounts: Sequence[Pubkey] = (),
    *,
    expired_at: int | None = None,
) -> tuple[Fate, int | None]:
    """Where the transactions behind `signatures` (valid up to `last_valid_block_height`,
    making `accounts`) stand, from answers no older than the expiry seen; and the slot
    at which the expiry was seen, to pass back as `expired_at` when asking again (a
    lagging node's view moves on and reaches it; the chain's head would keep ahead)."""
    if expired_at is None:
        seen = await rpc.epoch()
        if seen.block_height <= last_valid_block_height:
            return Fate.ALIVE, None
        expired_at = seen.slot
    view = await rpc.statuses_at(signatures)
    if any(landing is not None for landing in view.landings):
        return Fate.ALIVE, expired_at
    if view.context_slot is None or view.context_slot < expired_at:
        return Fate.UNKNOWN, expired_at  # a node behind the one that saw the expiry
    if accounts:
        try:
            found, slot = await rpc.existing(accounts, min_context_slot=expired_at)
        except RpcUnavailable:  # behind the slot (-32016), or no answer: asked again later
            return Fate.UNKNOWN, expired_at
        if any(found):
            return Fate.ALIVE, expired_at
        if slot is None or slot < expired_at:
            return Fate.UNKNOWN, expired_at
    return Fate.DEAD, expired_at


__all__ = ["Fate", "fate"]
