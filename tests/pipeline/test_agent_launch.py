"""Agent launches: a launch file's `agent: {mint, setToken}` goes to create and register as
the public service takes it. The sandbox checks that the agent exists and that the wallet
owns its asset (403 otherwise) and builds the Genesis instructions with the agent's wallet
as the creator (it pays the accounts' rent and is the genesis account's authority), each
wrapped in an mpl-core Execute by the owner, who pays the fees. The sandbox plays Execute
(mpl-core is not in LiteSVM): an agent's launch lands, with its wallet funded.
"""

from __future__ import annotations

import struct

import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.errors import BadRequestError
from launchops.chain.signing import required_signers
from launchops.genesis import DecodedInstruction, decode_instruction
from launchops.genesis.instructions import ADDS_BUCKET
from launchops.pipeline.runner import run_launch, run_step, validate
from launchops.sandbox.genesis_create import plan
from launchops.sandbox.genesis_verify import read
from launchops.states import Step
from tests.support.pipeline import context_for, seed_agent, stats, write_launch
from tests.support.solana import wait_for

SOL = 10**9


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
        assert len(data) == 5 + length  # the inner instruction's data, and nothing after it
        assert accounts[0] == asset and accounts[2] == p.agent_wallet(asset)
        assert accounts[3] == owner == accounts[4]  # the owner pays and authorizes
        assert accounts[5] == p.SYSTEM_PROGRAM
        inner.append((accounts[6], accounts[7:], data[5 : 5 + length]))
    return inner


def genesis_calls(
    tx: VersionedTransaction, asset: Pubkey, owner: Pubkey
) -> list[DecodedInstruction]:
    """The Genesis instructions inside a transaction's Executes, decoded."""
    found = []
    for program, accounts, data in unwrap(tx, asset, owner):
        assert program == p.GENESIS_PROGRAM
        found.append(decode_instruction(program, data, accounts))
    return found


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
    config = record.launch
    assert record.agent is not None and (record.agent.mint, record.agent.set_token) == (asset, True)
    first, *tails = [VersionedTransaction.from_bytes(raw) for raw in created.transactions]
    signers = required_signers(first)
    assert signers[0] == ctx.wallet and set(signers) == {ctx.wallet, created.mint}
    assert all(required_signers(tx) == [ctx.wallet] for tx in tails)
    calls = [call for tx in (first, *tails) for call in genesis_calls(tx, asset, ctx.wallet)]
    initialize, *middle, finalize, revoke = calls
    assert initialize == genesis_calls(first, asset, ctx.wallet)[0]  # the first transaction's
    assert initialize.name == "initializeV2"
    roles = initialize.accounts
    assert roles["payer"] == wallet and roles["authority"] == wallet  # the agent's wallet
    assert (roles["baseMint"], roles["genesisAccount"]) == (created.mint, created.genesis)
    args = initialize.args
    assert (args["name"], args["symbol"], args["uri"]) == (config.name, config.symbol, config.image)
    assert args["totalSupplyBaseToken"] == config.supply * 10**config.decimals
    launch = plan(config, wallet, created.mint)
    adds = [call for call in middle if call.name in ADDS_BUCKET]
    assert [(a.accounts["bucket"], a.args["baseTokenAllocation"]) for a in adds] == [
        (b.address, b.allocation) for b in launch.buckets
    ]
    assert [ADDS_BUCKET[a.name] for a in adds] == [b.kind for b in launch.buckets]
    assert (finalize.name, revoke.name) == ("finalizeV2", "revokeV2")
    assert revoke.args["revokeMintAuthority"] is True
    assert revoke.args["revokeFreezeAuthority"] is True
    assert finalize in genesis_calls(tails[-1], asset, ctx.wallet)  # the last transaction's
    for call in calls:  # every one the agent's wallet's, on this launch's genesis account
        assert call.accounts["genesisAccount"] == created.genesis, call.name
        assert call.accounts["authority"] == wallet, call.name
        assert call.accounts.get("payer", wallet) == wallet, call.name


async def test_an_agent_launch_lands_and_register_takes_the_same_agent(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        asset = seed(sandbox, ctx.wallet)
        wallet = p.agent_wallet(asset)
        async with AsyncClient(sandbox.rpc_url) as rpc:  # the agent's wallet pays the rent
            await wait_for(rpc, (await rpc.request_airdrop(wallet, SOL)).value)
        path = write_launch(tmp_path, form="presale", key="agent-land", agent={"mint": str(asset)})
        record = await run_launch(ctx, (await validate(ctx, path)).key)
        with pytest.raises(BadRequestError) as other:
            await ctx.client.register_launch(
                record.genesis, record.launch, agent=type(record.agent)(mint=Keypair().pubkey())
            )
        same = await ctx.client.register_launch(record.genesis, record.launch, agent=record.agent)
    assert record.state == "registered", record.last_error
    assert stats(sandbox)["launches"]["mintsOnChain"] == 1
    chain = sandbox.service.chain
    genesis = read(chain, Pubkey.from_string(record.genesis), "GenesisAccountV2")
    assert genesis is not None and genesis["authority"] == wallet and genesis["finalized"]
    assert chain.account(wallet).lamports < SOL  # the accounts' rent: the agent's wallet's
    assert other.value.error == "Launch does not match the launch that was created"
    assert [d["path"] for d in other.value.details] == [["agent", "mint"]]
    assert same.existing is True and same.launch.id == record.registered.launch_id


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
