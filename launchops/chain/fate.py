"""Whether the transactions of a create are provably dead: the one rule that decides a
create again, held against answers that are stale, forgetful or lie.

    verdict   what was read                                          a create again
    --------  -----------------------------------------------------  ---------------
    ALIVE     its blockhash is still valid, or a signature of it is  no: watch it
              seen landed without error
    LANDED    an account only it makes is on chain (whatever the     no: go on from it
              statuses say: a node without history reads null)
    FAILED    it landed and failed on chain, at the commitment, and  yes
              nothing it makes exists
    DEAD      the block height is past its lastValidBlockHeight      yes
              and, asked at a slot at least as high as the one that
              height was seen at, no signature is found and no
              account it makes exists (and, when it makes none, the
              node keeps its history back to the blockhash)
    UNKNOWN   the answers were too old, or only at `processed`, to   not yet: ask
              tell                                                    again later

A node behind a load balancer may answer "not found" from a slot before the transaction
landed: an answer whose context slot is older than the slot the expiry was seen at proves
nothing. A failed status counts only at the commitment asked for (`confirmed` at least):
a node on a minority fork may show a failure at `processed` that the cluster never saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from solders.pubkey import Pubkey
from solders.signature import Signature

from launchops.chain.landing import LEVELS, Landing
from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcRefused, RpcUnavailable

BLOCKHASH_BLOCKS = 150  # a blockhash lives this many blocks: the oldest slot a landing can be


class Fate(StrEnum):
    """The verdict of `fate` on a create's transactions (see the module's table)."""

    ALIVE = "alive"
    LANDED = "landed"
    FAILED = "failed"
    DEAD = "dead"
    UNKNOWN = "unknown"

    @property
    def final(self) -> bool:
        """Nothing of it can land any more: a create again is safe."""
        return self in (Fate.DEAD, Fate.FAILED)


@dataclass(frozen=True)
class Verdict:
    """What `fate` found: the verdict, the slot the expiry was seen at (pass it back as
    `expired_at` when asking again), and for LANDED or FAILED where it was read."""

    fate: Fate
    expired_at: int | None = None
    landing: Landing | None = None


def stricter(commitment: str) -> str:
    """The commitment a failure must reach to count: the profile's, `confirmed` at least."""
    return commitment if LEVELS[commitment] >= LEVELS["confirmed"] else "confirmed"


async def fate(
    rpc: ChainRpc,
    signatures: Sequence[Signature],
    last_valid_block_height: int,
    accounts: Sequence[Pubkey] = (),
    *,
    expired_at: int | None = None,
    commitment: str = "confirmed",
) -> Verdict:
    """Where the transactions behind `signatures` (valid up to `last_valid_block_height`,
    making `accounts`) stand, from answers no older than the expiry seen (see the table);
    `expired_at` is the slot an earlier call saw the expiry at (a lagging node's view moves
    on and reaches it; the chain's head would keep ahead)."""
    if expired_at is None:
        seen = await rpc.epoch()
        if seen.block_height <= last_valid_block_height:
            return Verdict(Fate.ALIVE)
        expired_at = seen.slot
    view = await rpc.statuses_at(signatures)
    seen_landings = [landing for landing in view.landings if landing is not None]
    if any(landing.err is None for landing in seen_landings):
        return Verdict(Fate.ALIVE, expired_at)
    if accounts and (made := await _by_accounts(rpc, accounts, expired_at)) is not None:
        return made
    wanted = stricter(commitment)
    if any(not landing.reached(wanted) for landing in seen_landings):
        return Verdict(Fate.UNKNOWN, expired_at)  # a failure at processed: a fork's, maybe
    if seen_landings:
        return Verdict(Fate.FAILED, expired_at, seen_landings[0])
    if view.context_slot is None or view.context_slot < expired_at:
        return Verdict(Fate.UNKNOWN, expired_at)  # a node behind the one that saw the expiry
    if not accounts and not await _remembers(rpc, last_valid_block_height):
        return Verdict(Fate.UNKNOWN, expired_at)  # "not found" from a node that forgot
    return Verdict(Fate.DEAD, expired_at)


async def _by_accounts(
    rpc: ChainRpc, accounts: Sequence[Pubkey], expired_at: int
) -> Verdict | None:
    """LANDED when an account the transactions make exists, read no earlier than the slot
    the expiry was seen at; UNKNOWN when the node cannot answer for that slot; None when
    none exists there (the statuses decide)."""
    try:
        found, slot = await rpc.existing(accounts, min_context_slot=expired_at)
    except RpcUnavailable:  # behind the slot (-32016), or no answer: asked again later
        return Verdict(Fate.UNKNOWN, expired_at)
    if any(found):
        proof = Landing(max(slot or 0, expired_at), "confirmed")
        return Verdict(Fate.LANDED, expired_at, proof)
    if slot is None or slot < expired_at:
        return Verdict(Fate.UNKNOWN, expired_at)
    return None


async def _remembers(rpc: ChainRpc, last_valid_block_height: int) -> bool:
    """Whether the node still has every slot the transactions could have landed in (a
    slot is never below its block height, so none before `last_valid - 150`). A node that
    does not say (the method refused) is taken at its word."""
    try:
        start = await rpc.ledger_start()
    except RpcRefused:
        return True
    return start <= max(last_valid_block_height - BLOCKHASH_BLOCKS, 0)


__all__ = ["Fate", "Verdict", "fate", "stricter"]
