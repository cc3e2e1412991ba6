"""Agent launches: a launch file's `agent: {mint, setToken}` goes to create and register as
the public service takes it. The sandbox checks that the agent exists and that the wallet
owns its asset (403 otherwise) and builds the transactions with the agent's wallet as the
creator, each instruction wrapped in an mpl-core Execute by the owner. mpl-core does not
run in LiteSVM, so they cannot land here: what is built is read instruction by instruction.
"""

from __future__ import annotations

import struct

import pytest
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.errors import BadRequestError
from launchops.chain.signing import required_signers
from launchops.pipeline.runner import run_launch, run_step, validate
from launchops.states import Step
from tests.support.pipeline import context_for, seed_agent, stats, write_launch

SYSTEM_CREATE_ACCOUNT = 0
INITIALIZE_MINT2 = 20
METADATA_POINTER = 39
MINT_TO_CHECKED = 14
SET_AUTHORITY = 6


def seed(sandbox, owner: Pubkey) -> Pubkey:
    return Pubkey.from_string(seed_agent(sandbox, owner))


def unwrap(
    tx: VersionedTransaction, asset: Pubkey, owner: Pubkey
) -> list[tuple[Pubkey, list[Pubkey], bytes]]:
    """Each instruction's inner (program, accounts, data), checking its Execute wrapper."""
    keys = tx.message.account_keys
    inner = []
    for ix in tx.message.instructions:
        accounts = [keys[i] for i in ix.accounts]
        data = bytes(ix.data)
        assert keys[ix.program_id_index] == p.MPL_CORE_PROGRAM
        assert data[0] == p.EXECUTE_DISCRIMINATOR
        (length,) = struct.unpack_from("<I", data, 1)
        assert accounts[0] == asset and accounts[2] == p.agent_wallet(asset)
        assert accounts[3] == owner == accounts[4]  # the owner pays and authorizes
        assert accounts[5] == p.SYSTEM_PROGRAM
        inner.append((accounts[6], accounts[7:], data[5 : 5 + length]))
    return inner


async def test_an_agent_launch_is_built_for_the_agents_wallet_inside_executes(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        asset = seed(sandbox, ctx.wallet)
        wallet = p.agent_wallet(asset)
        path = write_launch(
            tmp_path, form="presale", key="agent", agent={"mint": str(asset), "setToken": True}
        )
        key = (await validate(ctx, path)).key
        await run_step(Step.CREATE, ctx, key)
        record = await ctx.journal.get(key)
    created = record.current.created
    assert record.agent is not None and (record.agent.mint, record.agent.set_token) == (asset, True)
    first, *tails = [VersionedTransaction.from_bytes(raw) for raw in created.transactions]
    signers = required_signers(first)
    assert signers[0] == ctx.wallet and set(signers) == {ctx.wallet, created.mint, created.genesis}
    assert all(required_signers(tx) == [ctx.wallet] for tx in tails)
    inner = unwrap(first, asset, ctx.wallet)
    assert [program for program, _, _ in inner] == [
        p.SYSTEM_PROGRAM,
        p.TOKEN_2022_PROGRAM,
        p.TOKEN_2022_PROGRAM,
        p.TOKEN_2022_PROGRAM,
        p.SYSTEM_PROGRAM,
    ]
    (
        (_, mint_accounts, mint_data),
        (_, _, pointer),
        (_, _, init),
        (_, meta_accounts, _),
        (
            _,
            genesis_accounts,
            genesis_data,
        ),
    ) = inner
    assert struct.unpack_from("<I", mint_data)[0] == SYSTEM_CREATE_ACCOUNT
    assert mint_accounts[:2] == [wallet, created.mint]  # the agent's wallet pays the mint
    assert pointer[0] == METADATA_POINTER and Pubkey.from_bytes(pointer[2:34]) == wallet
    assert init[0] == INITIALIZE_MINT2 and Pubkey.from_bytes(init[2:34]) == wallet
    assert meta_accounts[1] == wallet and meta_accounts[3] == wallet  # update, mint authority
    assert genesis_accounts[:2] == [wallet, created.genesis]
    assert struct.unpack_from("<I", genesis_data)[0] == SYSTEM_CREATE_ACCOUNT
    minted = [
        (accounts, data)
        for tx in tails
        for program, accounts, data in unwrap(tx, asset, ctx.wallet)
        if program == p.TOKEN_2022_PROGRAM and data[0] == MINT_TO_CHECKED
    ]
    assert minted and all(accounts[2] == wallet for accounts, _ in minted)  # mint authority
    last = unwrap(tails[-1], asset, ctx.wallet)[-1]
    assert last[0] == p.TOKEN_2022_PROGRAM and last[2][0] == SET_AUTHORITY  # revoked


async def test_an_agent_launch_cannot_land_here_and_register_takes_the_same_agent(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        asset = seed(sandbox, ctx.wallet)
        path = write_launch(tmp_path, form="presale", key="agent-land", agent={"mint": str(asset)})
        record = await run_launch(ctx, (await validate(ctx, path)).key)
        with pytest.raises(BadRequestError) as other:
            await ctx.client.register_launch(
                record.genesis, record.launch, agent=type(record.agent)(mint=Keypair().pubkey())
            )
        with pytest.raises(BadRequestError) as same:
            await ctx.client.register_launch(record.genesis, record.launch, agent=record.agent)
    # mpl-core is not in LiteSVM: the node refuses the first Execute, nothing landed.
    assert record.state == "failed" and "refused transaction 1" in record.last_error
    assert stats(sandbox)["launches"]["mintsOnChain"] == 0
    assert other.value.error == "Launch does not match the launch that was created"
    assert [d["path"] for d in other.value.details] == [["agent", "mint"]]
    assert same.value.error == "Genesis account not found on-chain"  # it could not land


@pytest.mark.parametrize("whose", ["someone else's", "unknown"])
async def test_an_agent_the_wallet_does_not_own_is_refused_403(sandbox_factory, tmp_path, whose):
    sandbox = sandbox_factory()
    asset = seed(sandbox, Keypair().pubkey()) if whose == "someone else's" else Keypair().pubkey()
    async with context_for(sandbox, tmp_path) as ctx:
        path = write_launch(tmp_path, form="presale", key="not-mine", agent={"mint": str(asset)})
        record = await run_launch(ctx, (await validate(ctx, path)).key)
    assert record.state == "failed"
    assert record.last_error == "403 Agent is not owned by the connected wallet"
    assert record.current is None  # nothing was built, nothing to sign
    assert stats(sandbox)["api"]["POST /v1/launches/create"] == 1  # a 403 is not repeated


async def test_the_create_body_carries_the_agent(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        asset = seed(sandbox, ctx.wallet)
        path = write_launch(
            tmp_path, form="presale", key="agent-body", agent={"mint": str(asset), "setToken": True}
        )
        plan_key = (await validate(ctx, path)).key
        record = await ctx.journal.get(plan_key)
        body = ctx.client.create_body(ctx.wallet, record.launch, agent=record.agent)
    assert body["agent"] == {"mint": str(asset), "setToken": True}
    assert body["launch"]["publicKey"] == body["wallet"] == str(ctx.wallet)
