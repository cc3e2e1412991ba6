"""Landing a create as one Jito bundle (a profile's `landing: {mode: bundle}`).

The create's transactions carry the service's signatures, so nothing can be added to
them; the tip goes in a transaction of its own that the creator signs on the same
blockhash, last in the bundle. The bundle is sent, and sent again at each rebroadcast,
until its first transaction lands (the rest landed with it: all or nothing, one slot) or
its blockhash is provably dead, where the create is over exactly as a plain one's is
(`fate` rules whether to create again). The tip, the account it goes to and its signature
are journaled before the first send; the tip bytes are rebuilt from them after a crash
(signing is deterministic), so a re-run sends the same bundle. The create's transactions
never go out alone in this mode: that would break all or nothing.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.config.landing import MAX_BUNDLED
from launchops.errors import RpcGone, RpcRefused, RpcUnavailable, TransactionRejected
from launchops.journal.records import LaunchRecord, Spent
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.submission import Submission, fees_of
from launchops.states import Kind, LaunchState, Step

log = logging.getLogger(__name__)


def tip_transaction(
    keypair: Keypair, account: Pubkey, lamports: int, blockhash: Hash, launch: str
) -> VersionedTransaction:
    """The creator's tip to a tip account, on the create's blockhash, with a memo naming
    the launch: two launches created in one slot would otherwise sign the same tip (one
    transaction), and the second bundle would be dropped as already processed."""
    creator = keypair.pubkey()
    move = transfer(TransferParams(from_pubkey=creator, to_pubkey=account, lamports=lamports))
    note = p.memo(f"launchops tip {launch}", creator)
    message = MessageV0.try_compile(creator, [move, note], [], blockhash)
    return VersionedTransaction(message, [keypair])


async def submission_for(ctx: LaunchContext, record: LaunchRecord) -> Submission | None:
    """How this attempt goes out: a bundle, plain sends, or (None) refused here."""
    attempt = record.current
    assert attempt is not None and attempt.signed is not None
    landing = ctx.profile.landing
    started = attempt.spent.mode if attempt.spent is not None else None  # a re-run's
    engine = ctx.senders is not None and ctx.senders.bundles is not None
    if started == "bundle" and engine:
        return BundleSubmission(ctx, record)  # the same bundle, whatever the profile says now
    plain_before = started == "plain" or (started is None and attempt.anything_sent)
    if landing.mode != "bundle" or record.kind is not Kind.LAUNCH or plain_before:
        return Submission(ctx, record)  # an attempt sent plainly goes on so
    count = len(attempt.signed)
    if count <= MAX_BUNDLED:
        return BundleSubmission(ctx, record)
    too_long = f"the create has {count} transactions, more than a bundle holds with its tip"
    if landing.too_long == "plain":
        ctx.progress(record.key, Step.SUBMIT, f"{too_long} ({MAX_BUNDLED}): sending plainly")
        return Submission(ctx, record)
    error = f"{too_long} ({MAX_BUNDLED}); set landing.too_long: plain to send it plainly"
    await ctx.journal.set_state(
        record.key, LaunchState.FAILED, step=Step.SUBMIT, message=error, error=error
    )
    return None


class BundleSubmission(Submission):
    """A Submission whose every send is the whole bundle, to the block engine."""

    mode = "bundle"

    def __init__(self, ctx: LaunchContext, record: LaunchRecord) -> None:
        super().__init__(ctx, record)
        assert ctx.senders is not None and ctx.senders.bundles is not None
        self.engine = ctx.senders
        self.tip: Spent | None = self.attempt.spent
        self.tip_raw = b""

    async def run(self) -> None:
        await self.offer_tip()
        await super().run()

    async def offer_tip(self) -> None:
        """The tip of this attempt, journaled with every transaction marked sent (they go
        out together) before the first bundle leaves; rebuilt as it was on a re-run."""
        if self.tip is None or self.tip.tip_account is None:
            lamports = self.ctx.profile.landing.tip_for(self.attempt.number)
            account = await self.engine.tip_account()
            self.tip = Spent(mode="bundle", tip_lamports=lamports, tip_account=str(account))
        blockhash = self.attempt.created.blockhash
        account = Pubkey.from_string(str(self.tip.tip_account))
        launch = str(self.attempt.created.genesis or self.key)
        tx = tip_transaction(self.ctx.keypair, account, self.tip.tip_lamports, blockhash, launch)
        self.tip_raw = bytes(tx)
        self.tip = replace(self.tip, tip_signature=tx.signatures[0])
        self.sends = [replace(send, sent=True) for send in self.sends]
        self.ctx.progress(
            self.key, Step.SUBMIT, f"bundle of {len(self.signed)} + tip {self.tip.tip_lamports}"
        )
        await self.ctx.journal.record_sends(
            self.key,
            self.attempt.number,
            self.sends,
            state=LaunchState.SUBMITTING,
            spent=self.tip,
            note=f"bundle: tip {self.tip.tip_lamports} lamports to {account}",
        )

    async def _send(self, index: int, skip: bool) -> bool:
        """Send the whole bundle (again); a refusal after one was taken proves nothing."""
        try:
            await self.engine.send_bundle([*self.signed, self.tip_raw])
        except RpcRefused as exc:
            if 0 in self.taken:
                log.info("launch %s: bundle refused after one was taken: %s", self.key, exc)
                return True
            raise TransactionRejected(f"the block engine refused the bundle: {exc}") from None
        except RpcGone:
            raise
        except RpcUnavailable as exc:
            self.taken.add(0)  # no answer: it may have been taken all the same
            log.info("launch %s: bundle not taken, sending again: %s", self.key, exc)
            return True
        self.taken.add(0)
        return True

    async def settle(self) -> Spent:
        """Fees of the create's transactions and the tip's, and the tip, paid."""
        assert self.tip is not None and self.tip.tip_signature is not None
        fee = fees_of([*self.signed, self.tip_raw])
        spent = replace(self.tip, fee_lamports=fee, tip_paid=True, **self.slots())
        return await self.paid(spent, [*(s.signature for s in self.sends), self.tip.tip_signature])
