"""The RPC reads tools use on a launched token, answered node-shaped by the sandbox and read
by solana-py: the supply, the largest holders, an owner's token accounts, an address's
signatures, and mints and token accounts as jsonParsed."""

from __future__ import annotations

import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.models import TokenAccountOpts
from solders.pubkey import Pubkey
from solders.rpc.responses import RpcKeyedAccountJsonParsed

import launchops.web as web
from launchops.api import programs as p
from launchops.api.models import LaunchConfig
from launchops.pipeline.runner import run_launch, validate
from launchops.sandbox.launches import plan_buckets
from tests.support.pipeline import context_for, write_launch


@pytest.fixture
async def launched(sandbox_factory, tmp_path):
    """A launchpool launched end to end: the sandbox, the journal record, its buckets."""
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="reads"))).key
        record = await run_launch(ctx, key)
    assert record.state == "registered", record.last_error
    config = LaunchConfig.model_validate(record.config)
    mint, genesis = Pubkey.from_string(record.mint), Pubkey.from_string(record.genesis)
    return sandbox, record, plan_buckets(config, genesis, mint)


def rpc(sandbox, method: str, *params):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    return web.post(sandbox.rpc_url, json=body).json()


async def test_solana_py_reads_a_launched_mints_supply_and_holders(launched):
    sandbox, record, buckets = launched
    mint = Pubkey.from_string(record.mint)
    async with AsyncClient(sandbox.rpc_url) as client:
        supply = (await client.get_token_supply(mint)).value
        largest = (await client.get_token_largest_accounts(mint)).value
        [pool] = (
            await client.get_token_accounts_by_owner(buckets[0].owner, TokenAccountOpts(mint=mint))
        ).value
        parsed = (
            await client.get_token_accounts_by_owner_json_parsed(
                buckets[0].owner, TokenAccountOpts(program_id=p.TOKEN_2022_PROGRAM)
            )
        ).value
    assert (supply.amount, supply.decimals) == (str(10**15), 6)
    assert supply.ui_amount_string == "1000000000"
    amounts = {b.account: b.amount for b in buckets}
    assert {a.address: int(a.amount.amount) for a in largest} == amounts
    assert [int(a.amount.amount) for a in largest] == sorted(amounts.values(), reverse=True)
    assert pool.pubkey == buckets[0].account
    assert p.read_token_account(bytes(pool.account.data)).amount == buckets[0].amount
    [holding] = parsed
    assert isinstance(holding, RpcKeyedAccountJsonParsed)
    info = holding.account.data.parsed["info"]
    assert info["tokenAmount"]["amount"] == str(buckets[0].amount)
    assert info["tokenAmount"]["decimals"] == 6 and info["mint"] == record.mint


async def test_mints_and_token_accounts_as_json_parsed(launched):
    sandbox, record, buckets = launched
    async with AsyncClient(sandbox.rpc_url) as client:
        mint = (await client.get_account_info_json_parsed(Pubkey.from_string(record.mint))).value
        holding = (await client.get_account_info_json_parsed(buckets[1].account)).value
        creator = (await client.get_account_info_json_parsed(buckets[1].owner)).value
    assert mint.data.program == "spl-token-2022"
    info = mint.data.parsed["info"]
    assert info["supply"] == str(10**15) and info["decimals"] == 6
    assert info["mintAuthority"] is None and info["isInitialized"] is True
    extensions = {e["extension"]: e.get("state") for e in info["extensions"]}
    assert extensions["metadataPointer"]["metadataAddress"] == record.mint
    metadata = extensions["tokenMetadata"]
    assert (metadata["name"], metadata["symbol"], metadata["mint"]) == (
        "Pipeline Token",
        "PIPE",
        record.mint,
    )
    assert holding.data.parsed["type"] == "account"
    assert holding.data.parsed["info"]["owner"] == str(buckets[1].owner)
    assert holding.data.parsed["info"]["state"] == "initialized"
    assert {"extension": "immutableOwner"} in holding.data.parsed["info"]["extensions"]
    assert creator is None  # a bucket PDA holds no lamports of its own
    system = rpc(sandbox, "getAccountInfo", record.genesis, {"encoding": "jsonParsed"})
    assert system["result"]["value"]["data"][1] == "base64"  # no parser: as a node falls back


async def test_an_addresses_signatures_newest_first(launched):
    sandbox, record, _ = launched
    mint = Pubkey.from_string(record.mint)
    async with AsyncClient(sandbox.rpc_url) as client:
        every = (await client.get_signatures_for_address(mint)).value
        one = (await client.get_signatures_for_address(mint, limit=1)).value
        older = (await client.get_signatures_for_address(mint, before=every[0].signature)).value
    assert [str(s.signature) for s in every] == list(reversed(record.signatures))
    assert [s.slot for s in every] == sorted((s.slot for s in every), reverse=True)
    assert all(s.err is None and s.block_time for s in every)
    assert str(every[0].confirmation_status).endswith(("Confirmed", "Finalized"))
    assert one == every[:1] and older == every[1:]


def test_errors_are_a_nodes(sandbox):
    nobody = str(Pubkey.new_unique())
    assert rpc(sandbox, "getTokenSupply", nobody)["error"]["code"] == -32602
    assert rpc(sandbox, "getTokenLargestAccounts", "not-a-key")["error"]["code"] == -32602
    wrong = rpc(sandbox, "getTokenAccountsByOwner", nobody, {"programId": nobody})
    assert "Token program" in wrong["error"]["message"]
    assert rpc(sandbox, "getTokenAccountsByOwner", nobody, {})["error"]["code"] == -32602
    assert rpc(sandbox, "getSignaturesForAddress", nobody, {"limit": 5000})["error"]
    assert rpc(sandbox, "getSignaturesForAddress", nobody)["result"] == []
