"""The public JS client of the service (`@metaplex-foundation/genesis` with umi) runs a
launchpool launch against the sandbox unchanged: its base URL at the sandbox's API, its
umi RPC at the sandbox's JSON-RPC (and PubSub on port + 1, where web3.js looks)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solders.pubkey import Pubkey

import launchops.web as web
from launchops.api import programs as p
from launchops.api.client import AsyncServiceClient
from launchops.genesis.metadata import decode_metadata, unpuff
from launchops.genesis.pdas import find_metadata
from tests.support.solana import funded_keypair

JS = Path(__file__).parent / "js"
READY = (
    shutil.which("node") is not None
    and (JS / "node_modules" / "@metaplex-foundation" / "genesis").is_dir()
)
REQUIRED = os.environ.get("LAUNCHOPS_REQUIRE_NODE") == "1"

pytestmark = pytest.mark.node


@pytest.mark.skipif(
    not READY and not REQUIRED,
    reason="node or the npm packages are missing (npm ci in tests/interop/js)",
)
def test_create_and_register_launch_from_the_js_client(sandbox_factory):
    sandbox = sandbox_factory(slot_ms=50)

    async def fund():
        async with AsyncClient(sandbox.rpc_url) as rpc:
            return await funded_keypair(rpc)

    creator = asyncio.run(fund())
    run = subprocess.run(
        [
            "node",
            str(JS / "launch.mjs"),
            sandbox.url,
            sandbox.rpc_url,
            json.dumps(list(bytes(creator))),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    sent = result["signatures"]
    assert len(sent) >= 2  # initializeV2 first, finalizeV2 and revokeV2 last
    assert result["token"]["mintAddress"] == result["mintAddress"]

    async def check():
        async with (
            AsyncServiceClient(sandbox.base_url) as client,
            AsyncClient(sandbox.rpc_url) as rpc,
        ):
            token = await client.get_token(result["mintAddress"])
            assert token.base_token.symbol == "IOP" and token.socials.x == "https://x.com/interop"
            assert str(token.launches[0].genesis_address) == result["genesisAccount"]
            held = (await rpc.get_account_info(token.base_token.address)).value
            assert held.owner == p.TOKEN_PROGRAM
            mint = p.read_mint(bytes(held.data))
            assert (mint.decimals, mint.mint_authority, mint.freeze_authority) == (6, None, None)
            found = (await rpc.get_account_info(find_metadata(token.base_token.address)[0])).value
            metadata = decode_metadata(bytes(found.data))
            assert (unpuff(metadata["name"]), unpuff(metadata["symbol"])) == (
                "Interop Token",
                "IOP",
            )
            genesis = Pubkey.from_string(result["genesisAccount"])
            landed = (await rpc.get_signatures_for_address(genesis)).value
            assert sorted(str(s.signature) for s in landed) == sorted(sent)
            assert all(s.err is None for s in landed)

    asyncio.run(check())
    stats = web.get(f"{sandbox.url}/_sandbox/stats").json()
    assert stats["api"]["POST /v1/launches/create"] == 1
    assert stats["api"]["POST /v1/launches/register"] == 1
    assert stats["rpc"]["sendTransaction"] == len(sent)  # each of the create's, once
    assert stats["launches"]["registered"] == 1
