"""The launch's sign step reads what it signs (`launchops.chain.reader`): what a create of
the file is, from the file and the create answer, and the check each transaction passes
before the creator's key (and a first buyer's) signs it."""

from __future__ import annotations

from collections.abc import Callable

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.allocations import BondingCurveAllocation, fund_flows
from launchops.api.amounts import base_units, lamports
from launchops.api.models import LaunchConfig
from launchops.chain.checks import Tables, account_keys, lookup_tables
from launchops.chain.effects import read_effects
from launchops.chain.reader import Expected, read_allocations, read_launch
from launchops.errors import TransactionRefused
from launchops.genesis.pdas import find_genesis_account_v2
from launchops.journal.records import LaunchRecord
from launchops.pipeline.context import LaunchContext
from launchops.states import Kind

Check = Callable[[LaunchContext, LaunchRecord, bytes], None]


def expected_of(ctx: LaunchContext, record: LaunchRecord) -> Expected:
    """What a create of the launch's file is; refused when the answer's mint and genesis
    account are not the program's pair (the genesis account is the PDA of the mint)."""
    attempt = record.current
    assert attempt is not None and attempt.created.mint is not None
    config = record.launch
    mint = attempt.created.mint
    genesis = find_genesis_account_v2(mint, config.genesis_index)[0]
    if attempt.created.genesis not in (None, genesis):
        raise TransactionRefused(
            f"the create answer's genesis account {attempt.created.genesis} is not the "
            f"program's for its mint {mint} ({genesis}): nothing signed"
        )
    agent = record.agent.mint if record.agent else None
    return Expected(
        fee_payer=ctx.wallet,
        creator=p.agent_wallet(agent) if agent else ctx.wallet,
        mint=mint,
        genesis=genesis,
        name=config.name,
        symbol=config.symbol,
        uri=config.image,
        decimals=config.decimals,
        total=config.supply * 10**config.decimals,
        first_buy=_first_buy(record),
        agent=agent,
        allocations=allocations_of(config),
        quote_mint=Pubkey.from_string(str(config.quote_mint)),
        named=keys_named(config.to_wire()),
    )


def allocations_of(config: LaunchConfig) -> tuple[int, ...]:
    """Each bucket's base tokens as the file allocates them: every allocation, and every
    fund flow of one that holds tokens (sorted, none of 0)."""
    supplies = [a.supply for a in config.allocations]
    supplies += [flow.supply for a in config.allocations for flow in fund_flows(a)]
    return tuple(sorted(u for s in supplies if (u := base_units(s, config.decimals)) > 0))


def keys_named(wire: object) -> frozenset[Pubkey]:
    """Every key the file names, wherever it names one."""
    if isinstance(wire, dict):
        return frozenset().union(*(keys_named(v) for v in wire.values()))
    if isinstance(wire, list):
        return frozenset().union(*(keys_named(v) for v in wire))
    if isinstance(wire, str) and 32 <= len(wire) <= 44:
        try:
            return frozenset({Pubkey.from_string(wire)})
        except ValueError:
            return frozenset()
    return frozenset()


def _first_buy(record: LaunchRecord) -> tuple[Pubkey, int] | None:
    for allocation in record.launch.allocations:
        if isinstance(allocation, BondingCurveAllocation):
            buy = allocation.bonding_curve_v2.first_buy
            if buy.enabled and buy.buyer is not None and buy.amount is not None:
                return buy.buyer, lamports(buy.amount)
    return None


async def effects_of(ctx: LaunchContext, record: LaunchRecord, raw: bytes, number: int) -> None:
    """Before a launch's transaction `number` first leaves: the SOL its simulation pays
    to anyone, held to the rent of what it makes and the file's first buy
    (`launchops.chain.effects`)."""
    if record.kind is not Kind.LAUNCH:
        return  # a fund or a claim moves what it was asked to: its reader held it so
    tx = VersionedTransaction.from_bytes(raw)
    keys = account_keys(tx, await ctx.rpc.lookup_tables(list(lookup_tables(tx))))
    buy = _first_buy(record)
    spends = buy[1] if buy is not None else 0
    await read_effects(ctx.rpc, raw, number, ctx.wallet, keys, spends)


def launch_checker(tables: Tables) -> Check:
    """Each transaction of the create read against the file before it is signed."""

    def check(ctx: LaunchContext, record: LaunchRecord, raw: bytes) -> None:
        attempt = record.current
        assert attempt is not None
        transactions = list(attempt.created.transactions)
        number = transactions.index(raw) + 1
        expected = expected_of(ctx, record)
        if number == 1:  # what the buckets allocate, all transactions together
            read_allocations(transactions, expected, tables)
        read_launch(raw, number, expected, tables)

    return check


__all__ = ["allocations_of", "effects_of", "expected_of", "keys_named", "launch_checker"]
