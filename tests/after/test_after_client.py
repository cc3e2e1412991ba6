"""The client after the launch, against the sandbox over real HTTP: a launch's status,
creator rewards (nothing to claim as an ordinary result), minting and reading an agent;
the sync facade too."""

from __future__ import annotations

import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair

from launchops.api import NothingToClaim, RewardsClaim
from launchops.api.after import LaunchDetail, MintAgentResponse
from launchops.api.client import AsyncServiceClient, RetryPolicy, ServiceClient
from launchops.api.errors import BadRequestError, InvalidInputError, NotFoundError
from tests.support.after import buy, curve_config, lamports_of, launched
from tests.support.solana import funded_keypair, send_all


async def test_launch_status_and_list(sandbox, client, rpc):
    creator = await funded_keypair(rpc)
    genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
    detail = await client.get_launch(genesis)
    assert isinstance(detail, LaunchDetail)
    assert (detail.launch.status, detail.launch.type) == ("live", "bondingCurve")
    assert str(detail.launch.genesis_address) == genesis
    buy(sandbox, genesis, 200 * 10**9)
    graduated = await client.get_launch(genesis)
    assert graduated.launch.status == "graduated" and graduated.launch.graduated_at is not None
    listed = await client.list_launches(status="graduated")
    assert genesis in [str(d.launch.genesis_address) for d in listed]
    assert genesis not in [
        str(d.launch.genesis_address) for d in await client.list_launches(status="live")
    ]
    assert await client.list_launches(network="solana-devnet", spotlight=True) == []
    with pytest.raises(NotFoundError):
        await client.get_launch(genesis, network="solana-devnet")
    with pytest.raises(NotFoundError):
        await client.get_launch(Keypair().pubkey())


async def test_claim_pays_once_then_nothing_to_claim(sandbox, client, rpc):
    creator = await funded_keypair(rpc)
    genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
    nothing = await client.claim_creator_rewards(creator.pubkey())
    assert isinstance(nothing, NothingToClaim) and nothing.wallet == str(creator.pubkey())
    buy(sandbox, genesis, 5 * 10**9)
    claim = await client.claim_creator_rewards(creator.pubkey())
    assert isinstance(claim, RewardsClaim) and len(claim.transactions) == 1
    before = await lamports_of(rpc, creator.pubkey())
    await send_all(rpc, claim.transactions, creator)
    assert await lamports_of(rpc, creator.pubkey()) - before == 30_000_000 - 5_000
    assert isinstance(await client.claim_creator_rewards(creator.pubkey()), NothingToClaim)


async def test_claim_refusals_are_errors(client):
    with pytest.raises(InvalidInputError):
        await client.claim_creator_rewards("not-a-wallet")
    with pytest.raises(InvalidInputError):
        await client.claim_creator_rewards(Keypair().pubkey(), payer="nope")


async def test_mint_then_read_the_agent(sandbox_factory):
    sandbox = sandbox_factory()  # its own: the session's sandbox keeps its 30 agents
    async with (
        AsyncServiceClient(sandbox.base_url, retry=RetryPolicy(attempts=1)) as client,
        AsyncClient(sandbox.rpc_url) as rpc,
    ):
        minted, wallet = await _mint_then_read(client, rpc)
        agent = await client.get_agent(minted.asset_address)
    assert agent.authority == str(wallet.pubkey()) and agent.name == "Client Agent"


async def _mint_then_read(client, rpc) -> tuple[MintAgentResponse, Keypair]:
    wallet = await funded_keypair(rpc, sol=1)
    minted = await client.mint_agent(
        wallet.pubkey(),
        name="Client Agent",
        uri="https://gateway.irys.xyz/client.json",
        agent_metadata={"name": "Client Agent", "description": "minted by the client"},
        a2a_card={"name": "Client Agent", "description": "its own card", "skills": []},
    )
    assert isinstance(minted, MintAgentResponse)
    with pytest.raises(NotFoundError):
        await client.get_agent(minted.asset_address)
    await send_all(rpc, [minted.tx], wallet)
    agent = await client.get_agent(minted.asset_address)
    assert agent.authority == str(wallet.pubkey()) and agent.name == "Client Agent"
    card = await client.get_agent_card(minted.asset_address)
    assert card.description == "its own card"
    fund = await client.build_fund_tx(
        minted.asset_address, sender=wallet.pubkey(), amount="0.01", memo="m"
    )
    assert fund.tx
    with pytest.raises(BadRequestError, match="Collection not found"):
        await client.mint_agent(
            wallet.pubkey(),
            name="x",
            uri="https://gateway.irys.xyz/x.json",
            agent_metadata={"name": "x"},
            collection_address=Keypair().pubkey(),
        )
    with pytest.raises(InvalidInputError):
        await client.mint_agent(wallet.pubkey(), name="", uri="ftp://x", agent_metadata={})
    return minted, wallet


def test_the_sync_facade_has_the_calls(sandbox):
    with ServiceClient(sandbox.base_url) as client:
        assert isinstance(client.claim_creator_rewards(Keypair().pubkey()), NothingToClaim)
        assert isinstance(client.list_launches(), list)
        with pytest.raises(NotFoundError):
            client.get_agent(Keypair().pubkey())
