"""The sandbox speaks Genesis, checked with the public JS client's own code: for every form
of launch file, the create answer's transactions decode with the client's generated
instruction serializers into `initializeV2` (the file's name, symbol, image, supply and
decimals), one add-bucket instruction per allocation and fund flow, `finalizeV2` where
the launch finalizes, and nothing else that makes the mint or moves its supply; landed
and registered, its genesis account and buckets fetched over JSON-RPC with the client's
account fetchers hold what the file set. Every transaction makes an account that proves
it landed (`launchops.chain.proofs`), and the account is there."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solders.pubkey import Pubkey

from launchops.api.client import AsyncServiceClient
from launchops.api.models import LaunchConfig
from launchops.chain.proofs import made_by
from launchops.config.launchfile import load_launch_file
from launchops.sandbox.genesis_create import GenesisPlan, plan
from tests.interop.test_js_bonding_curve import node
from tests.interop.test_js_client import READY, REQUIRED
from tests.support.pipeline import ROOT, dump_yaml
from tests.support.solana import funded_keypair, send_all, wait_for

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        not READY and not REQUIRED,
        reason="node or the npm packages are missing (npm ci in tests/interop/js)",
    ),
]
FORMS = ["launchpool", "launchpool-locked", "presale", "raw-allocations", "bonding-curve"]
MOVES_SUPPLY = {"initializeV2"}  # the one instruction that makes the mint and mints it


def _file(tmp_path: Path, form: str, **changes: object) -> Path:
    import yaml

    document = yaml.safe_load((ROOT / "configs" / f"{form}.yaml").read_text())
    document.update(changes)
    path = tmp_path / f"{form}.yaml"
    path.write_text(dump_yaml(document))
    return path


@pytest.mark.parametrize("form", [*FORMS, "bonding-curve-plain"])
async def test_the_create_answer_is_genesis_as_the_js_client_reads_it(
    sandbox_factory, tmp_path, form
):
    sandbox = sandbox_factory(slot_ms=0)
    async with AsyncClient(sandbox.rpc_url) as rpc, AsyncServiceClient(sandbox.base_url) as client:
        creator = await funded_keypair(rpc)
        changes = {"bondingCurve": {}} if form == "bonding-curve-plain" else {}
        path = _file(tmp_path, form.removesuffix("-plain"), **changes)
        config = load_launch_file(path, wallet=creator.pubkey(), now=datetime.now(UTC)).config
        created = await client.create_launch(creator.pubkey(), config)
        launch = plan(config, creator.pubkey(), created.mint_address)
        assert launch.genesis == created.genesis_account
        answer = [bytes(tx) for tx in created.transactions]
        await send_all(rpc, answer, creator)
        registered = await client.register_launch(created.genesis_account, config)
        assert registered.token.mint_address == created.mint_address
        fetch = [["GenesisAccountV2", str(launch.genesis)]]
        fetch += [[b.kind, str(b.address)] for b in launch.buckets]
        body = {"rpc": sandbox.rpc_url, "transactions": [_b64(t) for t in answer], "fetch": fetch}
        spec = tmp_path / "answer.json"
        spec.write_text(json.dumps(body))
        read = node("genesis_answer.mjs", f"@{spec}")
        _genesis_words(read["transactions"], config, launch)
        account, *buckets = read["fetched"]
        assert account["baseMint"] == str(created.mint_address)
        assert int(account["totalSupplyBaseToken"]) == launch.total
        assert account["finalized"] == config.finalize and account["bucketCount"] == len(buckets)
        for bucket, planned in zip(buckets, launch.buckets, strict=True):
            assert int(bucket["bucket"]["baseTokenAllocation"]) == planned.allocation
            assert bucket["bucket"]["genesis"] == str(launch.genesis)
        fresh = [created.mint_address]
        for raw in answer:
            proofs = made_by(raw, fresh)
            assert proofs, "a transaction that makes nothing to prove it landed"
            found = await rpc.get_multiple_accounts(proofs)
            assert all(found.value), proofs


def _genesis_words(transactions: list, config: LaunchConfig, launch: GenesisPlan) -> None:
    """The answer as the client decodes it: initializeV2 as the file says, an add per
    bucket with its allocation, finalizeV2 where it finalizes, and no other program but
    the first buy's wrapping of SOL and its token account."""
    instructions = [ix for tx in transactions for ix in tx]
    genesis_ixs = [ix for ix in instructions if ix["name"]]
    first = genesis_ixs[0]
    assert first["name"] == "initializeV2"
    args = first["args"]
    assert (args["name"], args["symbol"], args["uri"]) == (
        config.name,
        config.symbol,
        config.image,
    )
    assert int(args["totalSupplyBaseToken"]) == config.supply * 10**config.decimals
    assert args["decimals"] == config.decimals
    adds = [
        ix
        for ix in genesis_ixs
        if ix["name"].startswith("add") and not ix["name"].endswith("Extensions")
    ]
    assert len(adds) == len(launch.buckets)
    assert [int(ix["args"]["baseTokenAllocation"]) for ix in adds] == [
        b.allocation for b in launch.buckets
    ]
    assert ("finalizeV2" in [ix["name"] for ix in genesis_ixs]) == config.finalize
    others = {ix["program"] for ix in instructions if not ix["name"]}
    buys = [ix for ix in genesis_ixs if ix["name"] == "swapBondingCurveV2"]
    if buys:  # the first buy wraps SOL and makes the buyer's token account
        assert others <= {
            "11111111111111111111111111111111",
            "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
            "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
        }
    else:
        assert others == set(), others


def _b64(raw: bytes) -> str:
    import base64

    return base64.b64encode(raw).decode()


async def test_an_agents_create_is_genesis_inside_execute_as_the_js_client_reads_it(
    sandbox_factory, tmp_path
):
    """An agent's launch: every Genesis instruction inside an mpl-core Execute of the
    agent by its owner, the agent's wallet (its asset signer) the creator; unwrapped, the
    client decodes the same create, and it lands and registers."""
    from launchops.api import programs as p
    from launchops.api.launches import AgentLink
    from tests.support.pipeline import seed_agent

    sandbox = sandbox_factory(slot_ms=0)
    async with AsyncClient(sandbox.rpc_url) as rpc, AsyncServiceClient(sandbox.base_url) as client:
        owner = await funded_keypair(rpc)
        asset = seed_agent(sandbox, owner.pubkey())
        agent = AgentLink(mint=asset)
        wallet = p.agent_wallet(Pubkey.from_string(asset))
        await wait_for(rpc, (await rpc.request_airdrop(wallet, 10**10)).value)  # it pays rent
        path = _file(tmp_path, "launchpool")
        config = load_launch_file(path, wallet=owner.pubkey(), now=datetime.now(UTC)).config
        created = await client.create_launch(owner.pubkey(), config, agent=agent)
        launch = plan(config, wallet, created.mint_address)
        answer = [bytes(tx) for tx in created.transactions]
        await send_all(rpc, answer, owner)
        registered = await client.register_launch(created.genesis_account, config, agent=agent)
        assert registered.token.mint_address == created.mint_address
        body = {"rpc": sandbox.rpc_url, "transactions": [_b64(t) for t in answer], "fetch": []}
        spec = tmp_path / "answer.json"
        spec.write_text(json.dumps(body))
        read = node("genesis_answer.mjs", f"@{spec}")
    _genesis_words(read["transactions"], config, launch)
    wrapped = [ix["wrappedBy"] for tx in read["transactions"] for ix in tx if ix["name"]]
    expected = {"asset": asset, "signer": str(wallet), "authority": str(owner.pubkey())}
    assert wrapped and all(w == expected for w in wrapped), wrapped
