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
from launchops.genesis.accounts import decode_account_as
from launchops.genesis.metadata import decode_metadata, unpuff
from launchops.genesis.pdas import TOKEN_METADATA_PROGRAM, associated_token_address, find_metadata
from launchops.pipeline.runner import run_launch, validate
from launchops.sandbox.launches import launch_plan
from tests.support.pipeline import context_for, write_launch

SUPPLY = 10**15  # a billion tokens of 6 decimals


@pytest.fixture
async def launched(sandbox_factory, tmp_path):
    """A launchpool launched end to end: the sandbox, the journal record, its Genesis plan
    (the genesis account, its buckets)."""
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="reads"))).key
        record = await run_launch(ctx, key)
    assert record.state == "registered", record.last_error
    config = LaunchConfig.model_validate(record.config)
    mint, genesis = Pubkey.from_string(record.mint), Pubkey.from_string(record.genesis)
    return sandbox, record, launch_plan(sandbox.service.chain, config, genesis, mint)


def rpc(sandbox, method: str, *params):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    return web.post(sandbox.rpc_url, json=body).json()


async def test_solana_py_reads_a_launched_mints_supply_and_holders(launched):
    """The whole supply is in the genesis account's escrow (its classic associated token
    account of the mint); the buckets' shares of it are numbers in their accounts."""
    sandbox, record, launch = launched
    mint = Pubkey.from_string(record.mint)
    escrow = associated_token_address(launch.genesis, mint)
    async with AsyncClient(sandbox.rpc_url) as client:
        supply = (await client.get_token_supply(mint)).value
        largest = (await client.get_token_largest_accounts(mint)).value
        [held] = (
            await client.get_token_accounts_by_owner(launch.genesis, TokenAccountOpts(mint=mint))
        ).value
        parsed = (
            await client.get_token_accounts_by_owner_json_parsed(
                launch.genesis, TokenAccountOpts(program_id=p.TOKEN_PROGRAM)
            )
        ).value
        legacy = (
            await client.get_token_accounts_by_owner(
                launch.genesis, TokenAccountOpts(program_id=p.TOKEN_2022_PROGRAM)
            )
        ).value
        buckets = [(await client.get_account_info(b.address)).value for b in launch.buckets]
    assert (supply.amount, supply.decimals) == (str(SUPPLY), 6)
    assert supply.ui_amount_string == "1000000000"
    assert [(a.address, int(a.amount.amount)) for a in largest] == [(escrow, SUPPLY)]
    assert held.pubkey == escrow and held.account.owner == p.TOKEN_PROGRAM
    state = p.read_token_account(bytes(held.account.data))
    assert (state.mint, state.owner, state.amount) == (mint, launch.genesis, SUPPLY)
    assert legacy == []  # nothing of the launch is Token-2022 any more
    balances = [
        decode_account_as(b.kind, bytes(account.data))["bucket"]
        for b, account in zip(launch.buckets, buckets, strict=True)
    ]
    assert [b["baseTokenBalance"] for b in balances] == [b.allocation for b in launch.buckets]
    assert [b["baseTokenAllocation"] for b in balances] == [b.allocation for b in launch.buckets]
    assert sum(b["baseTokenBalance"] for b in balances) == SUPPLY
    holdings = {h.pubkey: h for h in parsed}
    assert set(holdings) == {escrow, associated_token_address(launch.genesis, p.NATIVE_MINT)}
    holding = holdings[escrow]
    assert isinstance(holding, RpcKeyedAccountJsonParsed)
    assert holding.account.data.program == "spl-token"
    info = holding.account.data.parsed["info"]
    assert info["tokenAmount"]["amount"] == str(SUPPLY)
    assert info["tokenAmount"]["decimals"] == 6 and info["mint"] == record.mint
    assert info["owner"] == record.genesis and info["isNative"] is False


async def test_mints_and_token_accounts_as_json_parsed(launched):
    """A classic SPL Token mint with no extensions, its authorities revoked (the launch is
    final); its name and symbol in its Token Metadata account, not in the mint."""
    sandbox, record, launch = launched
    mint_key = Pubkey.from_string(record.mint)
    [funds] = launch.of("UnlockedFunds")  # the bucket the launch pool's raise goes to
    vault = associated_token_address(funds.address, p.NATIVE_MINT)
    async with AsyncClient(sandbox.rpc_url) as client:
        mint = (await client.get_account_info_json_parsed(mint_key)).value
        holding = (
            await client.get_account_info_json_parsed(
                associated_token_address(launch.genesis, mint_key)
            )
        ).value
        quote = (await client.get_account_info_json_parsed(vault)).value
        metadata = (await client.get_account_info(find_metadata(mint_key)[0])).value
    assert mint.data.program == "spl-token" and mint.owner == p.TOKEN_PROGRAM
    info = mint.data.parsed["info"]
    assert info["supply"] == str(SUPPLY) and info["decimals"] == 6
    assert info["mintAuthority"] is None and info["freezeAuthority"] is None
    assert info["isInitialized"] is True and "extensions" not in info
    assert metadata.owner == TOKEN_METADATA_PROGRAM
    read = decode_metadata(bytes(metadata.data))
    assert (unpuff(read["name"]), unpuff(read["symbol"]), read["mint"]) == (
        "Pipeline Token",
        "PIPE",
        mint_key,
    )
    assert unpuff(read["uri"]) == "https://gateway.irys.xyz/pipeline"
    assert read["updateAuthority"] == launch.creator
    assert holding.data.parsed["type"] == "account"
    assert holding.data.parsed["info"]["owner"] == record.genesis
    assert holding.data.parsed["info"]["state"] == "initialized"
    assert "extensions" not in holding.data.parsed["info"]
    quoted = quote.data.parsed["info"]
    assert (quoted["mint"], quoted["owner"]) == (str(p.NATIVE_MINT), str(funds.address))
    assert quoted["isNative"] is True and quoted["tokenAmount"]["decimals"] == 9
    for key in (record.genesis, str(funds.address)):  # no parser: as a node falls back
        shown = rpc(sandbox, "getAccountInfo", key, {"encoding": "jsonParsed"})["result"]["value"]
        assert shown["data"][1] == "base64" and shown["owner"] == str(p.GENESIS_PROGRAM)


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
