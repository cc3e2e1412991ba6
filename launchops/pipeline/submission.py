"""The submission engine: one create attempt's signed transactions, sent in order until
each has landed.

Each transaction is subscribed (so its landing is pushed), sent, and the same bytes are
rebroadcast until it lands at `confirmed` or its blockhash is provably dead (the block
height is past its `lastValidBlockHeight` and, asked at a slot at least that recent, its
signature is nowhere and no account it makes is on chain: `launchops.chain.fate`). A send
the RPC fails to take is sent again at the next rebroadcast; a stale answer is asked
again. Only what is final counts: a failed status at the profile's commitment
(`confirmed` at least) from an answer no older than the send, never one at `processed`
(a minority fork's); and an account only the transaction makes, found on chain, proves it
landed whatever the statuses say (a node without history). Then:

- all landed: `submitted`;
- the first expired with nothing landed: `expired` (the runner creates again);
- a tail expired after the head landed: re-signed under a fresh blockhash when only the
  creator signs it (at most MAX_RESIGNS transactions so), else `needs_attention`;
- it failed on chain: `failed` if nothing landed before it, else `needs_attention`, with
  what landed and what did not;
- the node refused it and no send of it was ever taken: the first, `failed`; a later one
  for want of SOL stays `submitting` (fund the key, run again: the same bytes are sent,
  or the tail is re-signed once they are dead); another refusal, `needs_attention`. A
  refusal after a send that may have been taken proves nothing: the chain decides.

Every send is journaled before it happens where it matters (the first one, for
`--replace`); re-sending the same signed bytes is harmless: a signature lands once.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace

from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.chain.costs import paid_by
from launchops.chain.expiry import read_deadline
from launchops.chain.fate import Fate, fate, stricter
from launchops.chain.landing import Landing
from launchops.chain.proofs import made_by
from launchops.chain.signing import only_ours, resign
from launchops.chain.sniping import buys_before, curve_vault
from launchops.errors import RpcGone, RpcUnavailable, TransactionRefused, TransactionRejected
from launchops.journal.records import Attempt, LaunchRecord, Send, Spent
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.secrets import secrets_of
from launchops.states import Kind, LaunchState, Outcome, Step

MAX_RESIGNS = 3
LAMPORTS_PER_SIGNATURE = 5000
S = LaunchState
log = logging.getLogger(__name__)


class Submission:
    """What one submit works on: the attempt, its signed bytes and what became of each."""

    mode = "plain"

    def __init__(self, ctx: LaunchContext, record: LaunchRecord) -> None:
        attempt = record.current
        assert attempt is not None and attempt.signed is not None and attempt.sends is not None
        self.ctx = ctx
        self.record = record
        self.key = record.key
        self.attempt = attempt
        self.signed = list(attempt.signed)
        self.sends = list(attempt.sends)
        # Transactions a node may have taken (a send answered, or not answered): a refusal
        # of a later send of one proves nothing. A send of an earlier run counts.
        self.taken = {index for index, send in enumerate(self.sends) if send.sent}
        self.floor: dict[int, int] = {}  # the highest slot seen when each was first sent
        self.bounded: dict[int, float] = {}  # when the chain last bounded each one's expiry

    async def run(self) -> None:
        """Land every transaction, in order, and journal how it ended."""
        index = 0
        while index < len(self.signed):
            try:
                landing = await self.land(index)
            except TransactionRejected as exc:  # the node refused it, and it was never taken
                await self.refused(index, exc)
                return
            except TransactionRefused as exc:  # the chain says it takes more than it may
                await self.stop(index, str(exc), refused=True)
                return
            if landing is not None and landing.err is None:
                self.sends[index] = self.sends[index].landed(landing)
                index += 1
            elif landing is not None:
                failed = f"transaction {index + 1} failed on chain: {landing.err}"
                await self.stop(index, failed, paid=index + 1)
                return
            elif index == 0:
                await self.expire()
                return
            elif (problem := await self.cannot_resign(index)) is not None:
                await self.stop(index, f"transactions {index + 1}.. expired; {problem}")
                return
            else:
                await self.resign_tail(index)  # and land it, from the same index
        await self.ctx.journal.record_sends(
            self.key,
            self.attempt.number,
            self.sends,
            state=S.SUBMITTED,
            note="all landed",
            spent=await self.settle(),
        )

    # ── one transaction ──────────────────────────────────────────────────────

    async def land(self, index: int) -> Landing | None:
        """Send transaction `index` (again) until it lands at `confirmed`, or expires (None)."""
        send = self.sends[index]
        if send.sent:  # sent before (a resumed run): it may have landed meanwhile
            view = await self.ctx.rpc.statuses_at([send.signature])
            [landing] = view.landings
            if self.decisive(index, landing, view.context_slot):
                return landing
        else:  # its first send: what the chain says it does, first (launchops.chain.effects)
            await self.read_effects(index)
        await self.ctx.watcher.expect(send.signature)  # subscribed before it is sent
        try:
            return await self._rebroadcast(index)
        finally:
            self.ctx.watcher.forget(send.signature)

    def decisive(self, index: int, landing: Landing | None, context_slot: int | None) -> bool:
        """Whether a status ends the wait: landed at `confirmed`, or failed at the profile's
        commitment (`confirmed` at least) in an answer no older than the send."""
        if landing is None:
            return False
        if landing.err is None:
            return landing.reached("confirmed")
        recent = context_slot is None or context_slot >= self.floor.get(index, 0)
        return recent and landing.reached(stricter(self.ctx.profile.commitment))

    async def _rebroadcast(self, index: int) -> Landing | None:
        ctx, profile = self.ctx, self.ctx.profile
        if not self.sends[index].sent:
            self.sends[index] = replace(self.sends[index], sent=True)
            if not any(s.sent for s in self.sends[:index]):
                # Recorded before anything is sent (what --replace checks). Later marks ride
                # with the next write: a landed transaction sent again costs nothing.
                await ctx.journal.record_sends(
                    self.key, self.attempt.number, self.sends, state=S.SUBMITTING
                )
        self.floor.setdefault(index, ctx.rpc.highest_slot)
        send = self.sends[index]
        created = self.attempt.created
        deadline = send.last_valid_block_height or created.last_valid_block_height
        ctx.progress(self.key, Step.SUBMIT, f"transaction {index + 1}/{len(self.signed)}")
        skip, last_send, first_send = profile.skip_preflight, 0.0, time.monotonic()
        stale_since: float | None = None
        asked = 0.0  # when the fate was last asked: at most once a rebroadcast period
        expired_at: int | None = None  # the slot at which its expiry was first seen
        while True:
            if time.monotonic() - last_send >= profile.rebroadcast_seconds:
                await ctx.check_lease(self.key)  # a lost lease sends nothing more
                skip = await self._send(index, skip)
                last_send = time.monotonic()
                await ctx.renew(self.key)
            # Whether it expired matters only once it is late: ask the block height then.
            late = time.monotonic() - first_send > profile.rebroadcast_seconds
            seen = await ctx.watcher.next(send.signature, height=late)
            if self.decisive(index, seen.landing, seen.context_slot):
                return seen.landing
            deadline = await self._bounded(index, deadline, seen.block_height, late)
            expired = seen.block_height is not None and seen.block_height > deadline
            if expired and time.monotonic() - asked >= profile.rebroadcast_seconds:
                asked = time.monotonic()
                verdict = await fate(
                    ctx.rpc,
                    [send.signature],
                    deadline,
                    self.made(index),
                    expired_at=expired_at,
                    commitment=profile.commitment,
                )
                expired_at = verdict.expired_at
                if verdict.fate is Fate.DEAD:
                    return None
                if verdict.fate in (Fate.LANDED, Fate.FAILED):
                    return verdict.landing
                stale_since = self.still_stale(stale_since, verdict.fate)

    async def _bounded(self, index: int, deadline: int, height: int | None, late: bool) -> int:
        """Transaction `index`'s expiry as the service said it, bounded by the chain's once
        the send is late (a lie would have it wait forever); asked at most once a
        rebroadcast period. A re-signed one's expiry is the chain's own already."""
        created = self.attempt.created
        if not late or self.sends[index].last_valid_block_height is not None:
            return deadline
        now = time.monotonic()
        if deadline <= (height or 0) or now - self.bounded.get(index, 0.0) < (
            self.ctx.profile.rebroadcast_seconds
        ):
            return deadline
        self.bounded[index] = now
        return await read_deadline(self.ctx.rpc, created.blockhash, deadline, created.seen_valid_at)

    async def _send(self, index: int, skip: bool) -> bool:
        """Send (again); whether the next sends may skip preflight. A send the RPC did not
        take is sent again at the next rebroadcast: only the chain says what landed. Once
        the RPC took it (or may have), the profile's other senders send it too."""
        try:
            await self.ctx.rpc.send(self.signed[index], skip_preflight=skip)
        except TransactionRejected as exc:
            if exc.blockhash_not_found:
                return skip
            if not exc.already_processed and index not in self.taken:
                raise
            # Taken before (this refusal may be a simulation over its own effects): the
            # chain decides, at the latest once its blockhash is dead.
            log.info("launch %s: send %d refused after one was taken: %s", self.key, index + 1, exc)
            return skip
        except RpcGone:
            raise
        except RpcUnavailable as exc:
            self.taken.add(index)  # no answer: it may have been taken all the same
            log.info("launch %s: send %d not taken, sending again: %s", self.key, index + 1, exc)
            await self._broadcast(index)
            return skip
        self.taken.add(index)
        await self._broadcast(index)
        return True  # rebroadcasts: no second simulation

    async def _broadcast(self, index: int) -> None:
        if self.ctx.senders is not None:
            await self.ctx.senders.broadcast(self.signed[index])

    def made(self, index: int) -> list[Pubkey]:
        """The accounts only transaction `index` makes, which prove it landed (`proofs`)."""
        return made_in(self.attempt, self.signed, index)

    def still_stale(self, since: float | None, verdict: Fate) -> float | None:
        """When answers began to be too old to decide; raises once that lasts too long
        (the launch stays `submitting`: a later run asks again)."""
        if verdict is not Fate.UNKNOWN:
            return None
        now = time.monotonic()
        since = since or now
        if now - since > self.ctx.profile.stale_answers_seconds:
            raise RpcUnavailable(
                f"launch {self.key}: the RPC's status answers stayed older than the slot "
                f"at which the blockhash was seen expired for "
                f"{self.ctx.profile.stale_answers_seconds:g} s; run it again later"
            )
        return since

    # ── how it ends ──────────────────────────────────────────────────────────

    def slots(self) -> dict[str, int | None]:
        """The slot seen at the first send (this run's) and the slot the first landed in."""
        first = self.sends[0].landing if self.sends else None
        return {"sent_slot": self.floor.get(0), "landed_slot": first.slot if first else None}

    async def settle(self) -> Spent:
        """What the landed attempt cost (fees), and, for a bonding curve's first buy, the
        buys of others that landed before it (read from the chain)."""
        spent = Spent(mode=self.mode, fee_lamports=fees_of(self.signed), **self.slots())
        spent = await self.paid(spent, [s.signature for s in self.sends])
        if self.record.kind is not Kind.LAUNCH or self.attempt.created.genesis is None:
            return spent
        vault = curve_vault(self.record.launch, self.attempt.created.genesis)
        if vault is None:
            return spent
        try:
            others = await buys_before(
                self.ctx.rpc, vault, [s.signature for s in self.sends], self.sends[-1].signature
            )
        except RpcUnavailable as exc:  # the launch landed: what is not known is only said
            log.info("launch %s: could not read the curve's buys: %s", self.key, exc)
            return spent
        return replace(spent, sniped_by=tuple(others))

    async def paid(self, spent: Spent, signatures: list[Signature]) -> Spent:
        """`spent` with what left the creator's account in `signatures`, from the chain."""
        try:
            paid = await paid_by(self.ctx.rpc, signatures, self.ctx.wallet)
        except RpcUnavailable as exc:  # the launch landed: what is not known is only said
            log.info("launch %s: could not read what it cost: %s", self.key, exc)
            return spent
        return replace(spent, creator_lamports=paid)

    async def read_effects(self, index: int) -> None:
        """What the chain says transaction `index` does to the creator, before it leaves
        (`launchops.pipeline.reading.effects_of`): refused, `TransactionRefused`."""
        from launchops.pipeline.reading import effects_of

        await effects_of(self.ctx, self.record, self.signed[index], index + 1)

    async def keypairs(self) -> list[Keypair]:
        """Every key we sign with: the creator's, and a launch's first buyer's."""
        if self.record.kind is not Kind.LAUNCH:
            return [self.ctx.keypair]
        return [self.ctx.keypair, *(await secrets_of(self.ctx, self.record)).signers]

    async def cannot_resign(self, index: int) -> str | None:
        """Why the expired tail from `index` cannot be re-signed by us, if it cannot."""
        if sum(1 for s in self.sends if s.replaced) >= MAX_RESIGNS:
            return "re-signed too often"
        ours = [k.pubkey() for k in await self.keypairs()]
        if not all(only_ours(raw, ours) for raw in self.signed[index:]):
            return "the rest need the service's signatures"
        return None

    async def resign_tail(self, index: int) -> None:
        """The expired tail under a fresh blockhash, signed by us alone, journaled first."""
        blockhash, last_valid = await self.ctx.rpc.latest_blockhash()
        keypairs = await self.keypairs()
        for position in range(index, len(self.signed)):
            fresh = resign(self.signed[position], keypairs, blockhash)
            old = self.sends[position]
            self.signed[position] = bytes(fresh)
            self.sends[position] = Send(
                fresh.signatures[0],
                replaced=(*old.replaced, old.signature),
                last_valid_block_height=last_valid,
            )
        total = len(self.signed)
        await self.ctx.journal.record_sends(
            self.key,
            self.attempt.number,
            self.sends,
            state=S.SUBMITTING,
            signed=self.signed,
            note=f"transactions {index + 1}..{total} expired after {index} landed: re-signed "
            "with a fresh blockhash",
        )
        self.ctx.progress(self.key, Step.SUBMIT, f"re-signed {total - index} expired transactions")

    async def refused(self, index: int, exc: TransactionRejected) -> None:
        """The node refused transaction `index` and no send of it was ever taken: it was not
        forwarded, so it cannot land. A later one refused for want of SOL waits, resumable,
        for the key to be funded; any other refusal ends here."""
        self.sends[index] = replace(self.sends[index], sent=False)
        if index > 0 and exc.unfunded:
            await self.ctx.journal.record_sends(
                self.key,
                self.attempt.number,
                self.sends,
                state=S.SUBMITTING,
                note=f"transaction {index + 1} refused for want of SOL; waits for the key",
                error=f"transaction {index + 1} of {len(self.signed)} refused: {exc}",
            )
            raise exc
        await self.stop(index, f"the node refused transaction {index + 1}: {exc}")

    async def expire(self) -> None:
        await self.ctx.journal.record_outcome(
            self.key,
            self.attempt.number,
            Outcome.EXPIRED,
            state=S.EXPIRED,
            error="blockhash expired before anything landed",
        )
        self.ctx.progress(
            self.key, Step.SUBMIT, "blockhash expired, nothing landed: creating again"
        )

    async def stop(
        self, index: int, why: str, paid: int | None = None, refused: bool = False
    ) -> None:
        """Nothing more can be done here: what landed and what did not, for a person, and
        the fees of the `paid` first transactions (those that landed, failed or not);
        `refused`: the first was refused unsent (`refused`, not `failed`)."""
        paid = index if paid is None else paid
        if paid:
            spent = Spent(mode=self.mode, fee_lamports=fees_of(self.signed[:paid]))
            await self.ctx.journal.record_sends(
                self.key, self.attempt.number, self.sends, spent=spent
            )
        created = self.attempt.created
        details = [
            {
                "landed": [str(s.signature) for s in self.sends[:index]],
                "notLanded": [str(s.signature) for s in self.sends[index:]],
                "mint": str(created.mint) if created.mint else None,
                "genesisAccount": str(created.genesis) if created.genesis else None,
            }
        ]
        await self.ctx.journal.record_outcome(
            self.key,
            self.attempt.number,
            Outcome.PARTIAL if index else Outcome.FAILED,
            state=S.NEEDS_ATTENTION if index else S.REFUSED if refused else S.FAILED,
            error=why,
            details=details,
            sends=self.sends,
        )


def fees_of(signed: list[bytes] | tuple[bytes, ...]) -> int:
    """Network fees of transactions that landed: 5,000 lamports a signature."""
    return sum(
        LAMPORTS_PER_SIGNATURE
        * VersionedTransaction.from_bytes(raw).message.header.num_required_signatures
        for raw in signed
    )


def made_in(attempt: Attempt, signed: list[bytes] | tuple[bytes, ...], index: int) -> list[Pubkey]:
    """The accounts only transaction `index` of `attempt` makes (as signed in `signed`): the
    first's mint and genesis account as create answered them, and what each creates."""
    created = attempt.created
    fresh = [key for key in (created.mint, created.genesis) if key is not None]
    made = made_by(signed[index], fresh) if index < len(signed) else []
    return list(dict.fromkeys([*fresh, *made])) if index == 0 else made
