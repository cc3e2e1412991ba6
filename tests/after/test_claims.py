"""Creator-reward claims through the plain driver, on the sandbox's real chain: nothing
to claim is an ordinary finished claim; fees accrued by buys are claimed once, what was
claimed read from the chain; an expired claim blockhash asks the service again."""

from __future__ import annotations

import pytest
from solana.rpc.async_api import AsyncClient
from solders.hash import Hash
from solders.keypair import Keypair

from launchops.api.client import AsyncServiceClient, RetryPolicy
from launchops.errors import InvalidInputError
from launchops.library.after import claim_rewards_in
from launchops.states import LaunchState
from tests.support.after import buy, curve_config, launched
from tests.support.pipeline import context_for, set_faults, stats
from tests.support.solana import funded_keypair

PAID = 2 * 10**9
FEE = PAID * 60 // 10_000  # the creator's 0.60 %


async def curve_paying(sandbox, fee_wallet) -> str:
    """A bonding-curve launch whose creator fees go to `fee_wallet`, and one buy on it."""
    async with (
        AsyncServiceClient(sandbox.base_url, retry=RetryPolicy(attempts=1)) as client,
        AsyncClient(sandbox.rpc_url) as rpc,
    ):
        creator = await funded_keypair(rpc)
        config = curve_config(creator.pubkey(), fee_wallet=fee_wallet)
        genesis = await launched(client, rpc, creator, config)
    assert buy(sandbox, genesis, PAID)["creatorFee"] == FEE
    return genesis


async def test_nothing_to_claim_is_a_finished_claim_of_nothing(sandbox, tmp_path):
    async with context_for(sandbox, tmp_path / "home") as ctx:
        first = await claim_rewards_in(ctx)
        second = await claim_rewards_in(ctx)
    assert first.state is LaunchState.CONFIRMED and first.finished, first
    assert first.nothing_to_claim and first.claimed == 0 and first.signatures == ()
    assert second.key != first.key and second.nothing_to_claim  # each run a claim of its own


async def test_fees_for_another_wallet_are_claimed_once_the_profile_paying(sandbox, tmp_path):
    owner = Keypair().pubkey()
    await curve_paying(sandbox, owner)
    async with context_for(sandbox, tmp_path / "home") as ctx:
        claimed = await claim_rewards_in(ctx, str(owner))
        again = await claim_rewards_in(ctx, str(owner))
    assert claimed.state is LaunchState.CONFIRMED and not claimed.nothing_to_claim, claimed
    assert claimed.claimed == FEE  # the payer paid the fees: all of it reached the wallet
    assert claimed.lamports_after - claimed.lamports_before == FEE
    assert len(claimed.signatures) == 1
    assert again.nothing_to_claim


async def test_an_expired_claim_asks_the_service_again_and_claims_once(sandbox, tmp_path):
    async with context_for(sandbox, tmp_path / "home") as ctx:
        await curve_paying(sandbox, ctx.wallet)
        before = stats(sandbox)["api"].get("POST /v1/creator-rewards/claim", 0)
        set_faults(sandbox, expire_next=1)
        result = await claim_rewards_in(ctx)
    assert result.finished and result.attempts == 2, result
    calls = stats(sandbox)["api"]["POST /v1/creator-rewards/claim"] - before
    assert calls == 2  # asked again, never resent under a new blockhash of ours
    assert 0 < result.claimed <= FEE  # the wallet paid its own fees


async def test_a_payer_other_than_the_profile_is_refused(sandbox, tmp_path):
    async with context_for(sandbox, tmp_path / "home") as ctx:
        with pytest.raises(InvalidInputError, match="payer must be the profile's wallet"):
            await claim_rewards_in(ctx, payer=str(Keypair().pubkey()))


def test_a_claim_that_pays_the_signers_sol_elsewhere_is_refused_unsigned():
    from types import SimpleNamespace

    from solders.message import MessageV0
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    from launchops.errors import TransactionRefused
    from launchops.pipeline.claims import checker

    payer, wallet, thief = Keypair(), Keypair().pubkey(), Keypair().pubkey()
    move = transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=thief, lamports=1))
    message = MessageV0.try_compile(payer.pubkey(), [move], [], Hash.default())
    raw = bytes(VersionedTransaction(message, [payer]))
    ctx = SimpleNamespace(wallet=payer.pubkey())
    record = SimpleNamespace(config={"wallet": str(wallet)})
    with pytest.raises(TransactionRefused, match="not to the wallet claimed for"):
        checker({})(ctx, record, raw)  # type: ignore[arg-type]


async def test_a_claim_stopped_after_signing_is_resumed_not_claimed_again(sandbox, tmp_path):
    from launchops.pipeline.claims import begin_claim
    from launchops.pipeline.runner import run_step
    from launchops.states import Step

    owner = Keypair().pubkey()
    await curve_paying(sandbox, owner)
    async with context_for(sandbox, tmp_path / "home") as ctx:
        started = await begin_claim(ctx, str(owner))
        for step in (Step.CREATE, Step.SIGN):  # then the process stopped
            await run_step(step, ctx, started.key)
        builds = stats(sandbox)["api"]["POST /v1/creator-rewards/claim"]
        resumed = await claim_rewards_in(ctx, str(owner))
    assert resumed.key == started.key and resumed.claimed == FEE, resumed
    assert stats(sandbox)["api"]["POST /v1/creator-rewards/claim"] == builds  # not asked again
