"""A blockhash's expiry as the chain shows it, never beyond what the service said.

The service answers a create with its blockhash and that blockhash's
`lastValidBlockHeight`; a service that lies there (10^9 blocks too high) would have every
run wait for an expiry that never comes. The chain cannot say a blockhash's last valid
height, but it can say whether the blockhash is still valid (`isBlockhashValid`), and
that answer is only worth something from a node that knows the blockhash: one whose view
is at least as recent as a view that called it valid (a node behind the blockhash's block
calls it invalid too). So:

- `seen_valid` asks once, before anything is signed: the context slot of an answer that
  calls the blockhash valid (kept with the attempt);
- `read_deadline` asks again later: a node at or past that slot calling it invalid means
  its block height there is past the blockhash's last valid height; that height, read
  from a node at least as far along, minus one, bounds the expiry from above. The
  service's figure stands when it is lower, and whenever the chain cannot tell.

Before either, `at_most_possible` caps the service's figure at what no blockhash the
chain has made so far can exceed: the highest slot any node has shown (a slot is never
below its block height) plus the 150 blocks a blockhash lives, plus a margin of 1,000
blocks for nodes far behind. A blockhash already dead when it is first read is bounded
so too, minutes later instead of never.

Everything that decides a blockhash is dead (`launchops.chain.fate`) still asks the
statuses and the accounts; the bound only stops a lie from making the wait endless.
"""

from __future__ import annotations

from solders.hash import Hash

from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcGone, RpcRefused, RpcUnavailable

BLOCKHASH_BLOCKS = 150  # how long a blockhash lives
BEHIND_MARGIN = 1000  # blocks a node answering may be behind the chain, at most


def at_most_possible(said: int, highest_slot: int) -> int:
    """`said`, capped at the last valid height of any blockhash made by slot
    `highest_slot` (0: no slot seen yet, nothing to cap by), with a margin."""
    if highest_slot <= 0:
        return said
    return min(said, highest_slot + BLOCKHASH_BLOCKS + BEHIND_MARGIN)


async def seen_valid(rpc: ChainRpc, blockhash: Hash) -> int | None:
    """The slot of a node's view that calls `blockhash` valid; None when it does not (a
    node behind it, a dead one) or cannot say."""
    try:
        valid, slot = await rpc.blockhash_valid(blockhash)
    except RpcGone:
        raise
    except (RpcRefused, RpcUnavailable):
        return None
    return slot if valid else None


async def read_deadline(rpc: ChainRpc, blockhash: Hash, said: int, seen_at: int | None) -> int:
    """`said` (the service's lastValidBlockHeight), or lower when a node whose view holds
    the blockhash (at or past `seen_at`) calls it invalid."""
    if seen_at is None:
        return said
    try:
        valid, slot = await rpc.blockhash_valid(blockhash)
        if valid or slot is None or slot < seen_at:
            return said
        height = (await rpc.epoch(min_context_slot=slot)).block_height
    except RpcGone:
        raise
    except (RpcRefused, RpcUnavailable):
        return said
    return min(said, height - 1)


__all__ = ["at_most_possible", "read_deadline", "seen_valid"]
