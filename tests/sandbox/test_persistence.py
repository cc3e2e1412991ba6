"""With a data folder, the sandbox's chain, registry and listings survive a restart."""

from __future__ import annotations

from solana.rpc.async_api import AsyncClient

import launchops.web as web
from launchops.api import programs as p
from launchops.api.client import AsyncServiceClient
from launchops.genesis.metadata import decode_metadata, unpuff
from launchops.genesis.pdas import find_metadata
from launchops.sandbox.server import Sandbox, SandboxConfig
from tests.support.solana import funded_keypair, launch_for, send_all


async def launch_on(sandbox: Sandbox) -> dict:
    async with AsyncClient(sandbox.rpc_url) as rpc, AsyncServiceClient(sandbox.base_url) as client:
        creator = await funded_keypair(rpc)
        config = launch_for(creator)
        created = await client.create_launch(creator.pubkey(), config)
        signatures = await send_all(rpc, created.transactions, creator)
        registered = await client.register_launch(created.genesis_account, config)
        return {
            "creator": creator,
            "config": config,
            "created": created,
            "signatures": signatures,
            "registered": registered,
            "balance": (await rpc.get_balance(creator.pubkey())).value,
        }


async def test_a_restart_keeps_chain_registry_and_listings(tmp_path):
    with Sandbox(SandboxConfig(port=0, slot_ms=0, data_dir=tmp_path, seed_agents=4)) as first:
        before = await launch_on(first)
        agents = web.get(f"{first.base_url}/agents").json()["data"]["agents"]
        slot = web.get(f"{first.url}/_sandbox/stats").json()["chain"]["slot"]

    with Sandbox(SandboxConfig(port=0, slot_ms=0, data_dir=tmp_path)) as second:
        assert web.get(f"{second.base_url}/agents").json()["data"]["agents"] == agents
        created = before["created"]
        async with (
            AsyncClient(second.rpc_url) as rpc,
            AsyncServiceClient(second.base_url) as client,
        ):
            again = await client.register_launch(created.genesis_account, before["config"])
            assert again.existing is True and again.launch.id == before["registered"].launch.id
            token = await client.get_token(created.mint_address)
            assert token.launches[0].genesis_address == created.genesis_account
            held = (await rpc.get_account_info(created.mint_address)).value
            assert held.owner == p.TOKEN_PROGRAM
            mint = p.read_mint(bytes(held.data))
            assert mint.supply == before["config"].supply * 10**6
            found = (await rpc.get_account_info(find_metadata(created.mint_address)[0])).value
            assert unpuff(decode_metadata(bytes(found.data))["name"]) == "My Token"
            statuses = (
                await rpc.get_signature_statuses(
                    before["signatures"], search_transaction_history=True
                )
            ).value
            assert all(s is not None and s.err is None for s in statuses)
            assert (await rpc.get_balance(before["creator"].pubkey())).value == before["balance"]
            assert (await rpc.get_slot()).value > slot
        await launch_on(second)  # and the chain goes on
        counts = web.get(f"{second.url}/_sandbox/stats").json()["launches"]
        assert counts == {"created": 2, "mintsOnChain": 2, "registered": 2, "agents": 4}


async def test_a_blockhash_handed_out_before_a_restart_still_works(tmp_path):
    with Sandbox(SandboxConfig(port=0, slot_ms=0, data_dir=tmp_path)) as first:
        async with AsyncClient(first.rpc_url) as rpc, AsyncServiceClient(first.base_url) as client:
            creator = await funded_keypair(rpc)
            config = launch_for(creator)
            created = await client.create_launch(creator.pubkey(), config)
    with Sandbox(SandboxConfig(port=0, slot_ms=0, data_dir=tmp_path)) as second:
        async with (
            AsyncClient(second.rpc_url) as rpc,
            AsyncServiceClient(second.base_url) as client,
        ):
            await send_all(rpc, created.transactions, creator)
            assert (
                await client.register_launch(created.genesis_account, config)
            ).token.mint_address == created.mint_address


async def test_a_kept_chain_hands_out_its_newest_blockhash_after_many_restarts(tmp_path):
    """A user's afternoon on one state folder: the sandbox started and stopped by every
    command. LiteSVM's blockhashes are the same sequence in every process; the kept chain's
    never repeat, and the newest is always the one handed out, valid for 150 blocks."""
    seen: set[str] = set()
    for run in range(25):
        with Sandbox(SandboxConfig(port=0, slot_ms=0, data_dir=tmp_path)) as sandbox:
            async with AsyncClient(sandbox.rpc_url) as rpc:
                for _ in range(3):
                    latest = (await rpc.get_latest_blockhash()).value
                    height = (await rpc.get_block_height()).value
                    assert latest.last_valid_block_height >= height + 149, (run, height)
                    assert str(latest.blockhash) not in seen, run
                    seen.add(str(latest.blockhash))
            if run in (0, 24):
                await launch_on(sandbox)
