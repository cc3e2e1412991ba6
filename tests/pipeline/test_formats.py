"""Every transaction format the service may send (the sandbox's `tx_format`): legacy, v0,
v0 with an address lookup table, v1. Launches, funds and withdraws are built, checked,
signed, sent and confirmed in each; an expired tail is re-signed in each."""

from __future__ import annotations

import pytest
from solders.message import Message, MessageV0, MessageV1
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.api import programs as p
from launchops.chain.checks import TransactionRefused, account_keys, check_fund
from launchops.pipeline.runner import run_launch, validate
from launchops.pipeline.transfers import begin_transfer
from launchops.sandbox.faults import Faults
from tests.support.pipeline import (
    advance,
    context_for,
    killed_after_first,
    seed_agent,
    set_faults,
    stats,
    write_launch,
)

FORMATS = ["legacy", "v0", "v0-alt", "v1"]
MESSAGE_TYPE = {"legacy": Message, "v0": MessageV0, "v0-alt": MessageV0, "v1": MessageV1}


def agents(sandbox) -> list[dict]:
    return web.get(f"{sandbox.base_url}/agents").json()["data"]["agents"]


def assert_format(signed: list[bytes], tx_format: str) -> None:
    """Each transaction in the format; with `v0-alt`, the later ones (bucket accounts,
    the agent's wallet) load accounts from a table: a first one is all signers."""
    messages = [VersionedTransaction.from_bytes(raw).message for raw in signed]
    assert all(type(m) is MESSAGE_TYPE[tx_format] for m in messages)
    tables = [bool(getattr(m, "address_table_lookups", [])) for m in messages]
    assert tables[-1] is (tx_format == "v0-alt")


@pytest.mark.parametrize("tx_format", FORMATS)
async def test_a_launch_lands_and_registers_in_each_format(sandbox_factory, tmp_path, tx_format):
    sandbox = sandbox_factory(faults=Faults(tx_format=tx_format))
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key=f"fmt-{tx_format}"))).key
        record = await run_launch(ctx, key)
        assert_format(list(record.current.signed), tx_format)
        landed = await ctx.rpc.client.get_transaction(
            record.current.signatures[-1], max_supported_transaction_version=1
        )
    assert record.state == "registered", record.last_error
    version = landed.value.transaction.version  # as a node names it
    expected = {"legacy": "Legacy", "v0": "0", "v0-alt": "0", "v1": "1"}[tx_format]
    assert str(version).endswith(expected)
    assert stats(sandbox)["launches"]["registered"] == 1


@pytest.mark.parametrize("tx_format", FORMATS)
async def test_an_expired_tail_is_re_signed_in_each_format(sandbox_factory, tmp_path, tx_format):
    sandbox = sandbox_factory(faults=Faults(tx_format=tx_format))
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key=f"tail-{tx_format}"))).key
        attempt = await killed_after_first(ctx, key)
        advance(sandbox, 160)
        record = await run_launch(ctx, key)
    assert record.state == "registered" and record.attempt == 1, record.last_error
    tail = record.current.sends[1]
    assert tail.replaced == (attempt.signatures[1],)
    assert_format([record.current.signed[1]], tx_format)  # re-signed in its own format


@pytest.mark.parametrize("tx_format", FORMATS)
async def test_a_fund_is_checked_and_lands_in_each_format(sandbox_factory, tmp_path, tx_format):
    sandbox = sandbox_factory(seed_agents=2, seed=5, faults=Faults(tx_format=tx_format))
    agent = agents(sandbox)[0]["mintAddress"]
    wallet = p.agent_wallet(Pubkey.from_string(agent))
    async with context_for(sandbox, tmp_path) as ctx:
        before = await ctx.rpc.balance(wallet)
        record = await begin_transfer(ctx, "fund", agent=agent, amount="0.25", memo="formats")
        done = await run_launch(ctx, record.key)
        after = await ctx.rpc.balance(wallet)
    assert done.state == "confirmed", done.last_error
    assert after - before == 250_000_000
    tx = VersionedTransaction.from_bytes(done.current.signed[0])
    assert_format(list(done.current.signed), tx_format)
    if tx_format == "v0-alt":  # the agent's wallet is loaded from the table, not listed
        assert wallet not in tx.message.account_keys


@pytest.mark.parametrize("tx_format", FORMATS)
async def test_a_withdraw_is_checked_and_signed_in_each_format(
    sandbox_factory, tmp_path, tx_format
):
    sandbox = sandbox_factory(faults=Faults(tx_format=tx_format))
    async with context_for(sandbox, tmp_path) as ctx:
        owned = seed_agent(sandbox, ctx.wallet)
        funded = await begin_transfer(ctx, "fund", agent=owned, amount="1", memo="to withdraw")
        assert (await run_launch(ctx, funded.key)).state == "confirmed"
        record = await begin_transfer(ctx, "withdraw", agent=owned, amount="0.5")
        done = await run_launch(ctx, record.key)
    # It passed the checks, was signed and landed (the sandbox plays mpl-core's Execute).
    assert done.current.signed is not None, done.last_error
    assert done.state == "confirmed", done.last_error
    assert_format(list(done.current.signed), tx_format)


async def test_a_fund_through_a_lookup_table_is_read_through_it(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(seed_agents=1, seed=3, faults=Faults(tx_format="v0-alt"))
    agent = Pubkey.from_string(agents(sandbox)[0]["mintAddress"])
    async with context_for(sandbox, tmp_path) as ctx:
        built = await ctx.client.build_fund_tx(agent, sender=ctx.wallet, amount="1", memo="m")
        tx = VersionedTransaction.from_bytes(built.tx)
        [table] = [lookup.account_key for lookup in tx.message.address_table_lookups]
        tables = await ctx.rpc.lookup_tables([table, Pubkey.default()])
    assert list(tables) == [table]  # the system program's id is no table
    assert p.agent_wallet(agent) in account_keys(tx, tables)
    check_fund(tx, agent=agent, sender=ctx.wallet, lamports=10**9, memo="m", tables=tables)
    with pytest.raises(TransactionRefused, match="not found on the chain"):
        check_fund(tx, agent=agent, sender=ctx.wallet, lamports=10**9, memo="m")
    with pytest.raises(TransactionRefused, match="moves 1000000000 lamports, not 5"):
        check_fund(tx, agent=agent, sender=ctx.wallet, lamports=5, memo="m", tables=tables)
    unsigned = VersionedTransaction.populate(tx.message, [Signature.default()])
    assert account_keys(unsigned, tables) == account_keys(tx, tables)


async def test_the_format_is_a_sandbox_setting(sandbox_factory):
    sandbox = sandbox_factory()
    assert web.get(f"{sandbox.url}/_sandbox/faults").json()["tx_format"] == "v0"
    set_faults(sandbox, tx_format="legacy")
    assert web.get(f"{sandbox.url}/_sandbox/faults").json()["tx_format"] == "legacy"
    refused = web.put(f"{sandbox.url}/_sandbox/faults", json={"tx_format": "v2"})
    assert refused.status_code == 400 and "tx_format" in refused.text


async def test_a_lookup_table_and_what_it_loaded_survive_a_restart(sandbox_factory, tmp_path):
    data = tmp_path / "chain"
    first = sandbox_factory(data_dir=data, seed_agents=1, seed=4, faults=Faults(tx_format="v0-alt"))
    agent = agents(first)[0]["mintAddress"]
    wallet = p.agent_wallet(Pubkey.from_string(agent))
    async with context_for(first, tmp_path) as ctx:
        record = await begin_transfer(ctx, "fund", agent=agent, amount="0.5", memo="kept")
        done = await run_launch(ctx, record.key)
        funded = await ctx.rpc.balance(wallet)
    tx = VersionedTransaction.from_bytes(done.current.signed[0])
    [table] = [lookup.account_key for lookup in tx.message.address_table_lookups]
    first.stop()
    again = sandbox_factory(data_dir=data)
    async with context_for(again, tmp_path / "again") as ctx:
        assert await ctx.rpc.balance(wallet) == funded >= 500_000_000
        assert wallet in (await ctx.rpc.lookup_tables([table]))[table]
        landed = await ctx.rpc.client.get_transaction(
            done.current.signatures[0], max_supported_transaction_version=0
        )
    loaded = landed.value.transaction.meta.loaded_addresses
    assert wallet in loaded.writable
