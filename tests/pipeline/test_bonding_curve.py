"""Bonding-curve launches from a `bondingCurve:` launch file: compiled as the public client
builds them, launched against the sandbox (real mint, curve and pool buckets, a first buy
that moves real SOL and tokens), a first buyer other than the creator signing too and
never journaled, resumed from another process, an expired tail re-signed by both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.errors import LaunchFileError
from launchops.chain.signing import required_signers
from launchops.errors import SecretUnavailable
from launchops.genesis import decode_instruction
from launchops.genesis.accounts import decode_account_as
from launchops.genesis.metadata import decode_metadata, unpuff
from launchops.genesis.pdas import (
    FEE_WALLET,
    associated_token_address,
    find_bucket_v2,
    find_metadata,
)
from launchops.pipeline.runner import run_launch, run_step, validate
from launchops.sandbox import bonding
from launchops.sandbox.genesis_create import plan
from launchops.sandbox.launches import launch_plan
from launchops.states import LaunchState, Step
from tests.chaos.test_secrets import forms
from tests.support.pipeline import (
    WALLET,
    advance,
    context_for,
    dump_yaml,
    killed_after_first,
    load_launch,
    stats,
)

CURVE = {"type", "name", "supply", "bondingCurveV2"}


def curve_file(folder: Path, key: str = "curve", **changes) -> Path:
    document = {
        "id": key,
        "name": "Curve Token",
        "symbol": "CURVE",
        "image": "https://gateway.irys.xyz/curve",
        "bondingCurve": changes.pop("bondingCurve", {}),
        **changes,
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.yaml"
    path.write_text(dump_yaml(document))
    return path


def buyer_file(folder: Path) -> tuple[Keypair, Path]:
    keypair = Keypair()
    path = folder / "buyer.json"
    path.write_text(json.dumps(list(bytes(keypair))))
    path.chmod(0o600)
    return keypair, path


def first_buy_launch(folder: Path, key: str, sol: str) -> tuple[Keypair, Path, Path]:
    """A curve launch whose first buy another wallet pays, its key in a file: the buyer,
    its key file and the launch file."""
    buyer, source = buyer_file(folder)
    first_buy = {"firstBuyAmount": sol, "firstBuyWallet": f"file:{source}"}
    return buyer, source, curve_file(folder, key, bondingCurve=first_buy)


def test_a_plain_curve_compiles_to_the_public_clients_allocation(tmp_path):
    path = tmp_path / "plain.yaml"
    path.write_text("name: Plain\nsymbol: PLN\nimage: https://gateway.irys.xyz/p\nbondingCurve:\n")
    config = load_launch(path, public_service=True).config
    wire = config.to_wire()
    assert (wire["type"], wire["supply"], wire["decimals"]) == ("bondingCurve", 10**9, 6)
    assert wire["quoteMint"] == "So11111111111111111111111111111111111111112"
    [curve] = wire["allocations"]
    assert set(curve) == CURVE and curve["supply"] == 717948717.948717
    settings = curve["bondingCurveV2"]
    assert settings["swapStartCondition"] == {"type": "Always"}
    assert settings["swapEndCondition"] == {"type": "Triggered"}
    assert (settings["virtualBaseTokens"], settings["virtualQuoteTokens"]) == (464555052.790349, 55)
    assert settings["firstBuy"] == {"enabled": False}
    assert settings["creatorFee"] == {"enabled": True, "wallet": str(WALLET)}
    [pool] = settings["fundFlows"]
    assert (pool["type"], pool["supply"], pool["percentageBps"]) == (
        "RaydiumLP",
        282051282.051283,
        10000,
    )
    assert pool["lpLockSchedule"]["startCondition"] == {"type": "Never"}
    assert pool["creatorFee"] == settings["creatorFee"]
    assert [b.type for b in config.buckets()] == ["bondingCurveV2", "RaydiumLP"]


def test_the_first_buyer_and_fee_wallet_default_to_the_agent_then_the_creator(tmp_path):
    agent = Keypair().pubkey()
    fee = Keypair().pubkey()
    with_agent = curve_file(
        tmp_path,
        "agent",
        bondingCurve={"firstBuyAmount": "0.25"},
        agent={"mint": str(agent), "setToken": True},
    )
    plan = load_launch(with_agent)
    settings = plan.config.allocations[0].bonding_curve_v2
    assert settings.first_buy.buyer == p.agent_wallet(agent) == settings.creator_fee.wallet
    assert str(settings.first_buy.amount) == "0.25"
    assert plan.agent is not None and plan.agent.set_token is True
    keypair, source = buyer_file(tmp_path)
    given = curve_file(
        tmp_path,
        "given",
        bondingCurve={
            "creatorFeeWallet": str(fee),
            "firstBuyAmount": "1.5",
            "firstBuyWallet": f"file:{source}",
        },
    )
    plan = load_launch(given)
    settings = plan.config.allocations[0].bonding_curve_v2
    assert settings.first_buy.buyer == keypair.pubkey() and settings.creator_fee.wallet == fee
    assert plan.secrets.first_buyer == keypair
    assert "LaunchSecrets" not in repr(plan) and "Keypair" not in repr(plan.secrets)


def test_bonding_curve_rules_name_file_line_and_field(tmp_path):
    cases = {
        "usdc": ({"quoteMint": "USDC"}, "bondingCurve", "SOL as its quote"),
        "lonely": (
            {"bondingCurve": {"firstBuyWallet": "file:/nowhere.json"}},
            "bondingCurve",
            "firstBuyWallet buys nothing without firstBuyAmount",
        ),
        "missing": (
            {"bondingCurve": {"firstBuyAmount": "1", "firstBuyWallet": "file:/nowhere.json"}},
            "bondingCurve.firstBuyWallet",
            "cannot be loaded: cannot read keypair file /nowhere.json",
        ),
        "negative": (  # 0 is no first buy, as the public client reads it
            {"bondingCurve": {"firstBuyAmount": "-1"}},
            "bondingCurve.firstBuyAmount",
            "positive",
        ),
        "typo": ({"bondingCurve": {"firstBuy": "1"}}, "bondingCurve.firstBuy", "not a known field"),
        "sandbox-key": (
            {"bondingCurve": {"firstBuyAmount": "1", "firstBuyWallet": "sandbox"}},
            "bondingCurve.firstBuyWallet",
            "should match pattern",
        ),
    }
    for key, (changes, field, message) in cases.items():
        path = curve_file(tmp_path, key, **changes)
        with pytest.raises(LaunchFileError) as caught:
            load_launch(path)
        found = [pr for pr in caught.value.file_problems if pr.field == field]
        assert found and message in found[0].message, (key, caught.value.file_problems)
        assert found[0].line is not None


def test_raw_bonding_curve_allocations_keep_the_fixed_supply(tmp_path):
    config = load_launch(curve_file(tmp_path, "source")).config
    raw = {
        "name": "Raw Curve",
        "symbol": "RAW",
        "image": "https://gateway.irys.xyz/raw",
        "type": "bondingCurve",
        "supply": 2_000_000_000,
        "allocations": [config.allocations[0].to_wire()],
    }
    path = tmp_path / "raw.yaml"
    path.write_text(dump_yaml(raw))
    with pytest.raises(LaunchFileError, match="a bondingCurve launch has supply 1000000000"):
        load_launch(path)


async def test_a_plain_curve_launches_and_registers(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, curve_file(tmp_path, "plain-curve"))).key
        record = await run_launch(ctx, key)
        token = await ctx.client.get_token(record.mint)
        mint_key, genesis = Pubkey.from_string(record.mint), Pubkey.from_string(record.genesis)
        launch = launch_plan(sandbox.service.chain, record.launch, genesis, mint_key)
        found = [(await ctx.rpc.client.get_account_info(b.address)).value for b in launch.buckets]
        escrow = (
            await ctx.rpc.client.get_token_account_balance(
                associated_token_address(genesis, mint_key)
            )
        ).value
        held = (await ctx.rpc.client.get_account_info(mint_key)).value
        metadata = (await ctx.rpc.client.get_account_info(find_metadata(mint_key)[0])).value
    assert record.state == "registered", (record.last_error, record.error_details)
    assert (
        token.launches[0].mechanic == "bondingCurveV2" and token.launches[0].type == "bondingCurve"
    )
    assert [b.source for b in launch.buckets] == ["bondingCurveV2", "RaydiumLP"]
    assert [b.address for b in launch.buckets] == [
        find_bucket_v2("BondingCurveBucketV2", genesis, 0)[0],
        find_bucket_v2("RaydiumCpmmBucketV2", genesis, 0)[0],
    ]
    assert all(a is not None and a.owner == p.GENESIS_PROGRAM for a in found)
    curve, pool = (
        decode_account_as(b.kind, bytes(a.data))["bucket"]
        for b, a in zip(launch.buckets, found, strict=True)
    )
    assert curve["baseTokenAllocation"] == curve["baseTokenBalance"] == 717948717948717
    assert pool["baseTokenAllocation"] == pool["baseTokenBalance"] == 282051282051283
    assert curve["genesis"] == pool["genesis"] == genesis
    assert escrow.amount == str(10**15)  # every token in the genesis account's escrow
    assert held.owner == p.TOKEN_PROGRAM
    mint = p.read_mint(bytes(held.data))
    assert (mint.supply, mint.decimals) == (10**15, 6)
    assert mint.mint_authority is None and mint.freeze_authority is None
    named = decode_metadata(bytes(metadata.data))
    assert (unpuff(named["name"]), unpuff(named["symbol"])) == ("Curve Token", "CURVE")


ADD_CURVE = "addConstantProductBondingCurveBucketV2"


def genesis_names(tx: VersionedTransaction) -> list[str]:
    """The names of a transaction's Genesis instructions, in order."""
    keys = tx.message.account_keys
    return [
        decode_instruction(
            keys[ix.program_id_index], bytes(ix.data), [keys[i] for i in ix.accounts]
        ).name
        for ix in tx.message.instructions
        if keys[ix.program_id_index] == p.GENESIS_PROGRAM
    ]


async def airdrop(ctx, key: Pubkey, sol: int) -> None:
    signature = await ctx.rpc.airdrop(key, sol * 10**9)
    for _ in range(100):
        [landing] = await ctx.rpc.statuses([signature])
        if landing is not None and landing.reached("confirmed"):
            return
    raise AssertionError("the airdrop did not land")


async def test_a_first_buy_by_another_wallet_is_signed_by_it_and_never_journaled(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory()
    buyer, source, path = first_buy_launch(tmp_path, "first-buy", "2")
    async with context_for(sandbox, tmp_path) as ctx:
        await airdrop(ctx, buyer.pubkey(), 5)
        key = (await validate(ctx, path)).key
        record = await run_launch(ctx, key)
        assert record.state == "registered", (record.last_error, record.error_details)
        mint, genesis = Pubkey.from_string(record.mint), Pubkey.from_string(record.genesis)
        launch = plan(record.launch, record.launch.public_key, mint)
        buy = bonding.first_buy(record.launch, launch)
        client = ctx.rpc.client
        vault = (await client.get_token_account_balance(buy.vault)).value
        bought = (await client.get_token_account_balance(buy.account)).value
        wrapped = associated_token_address(buyer.pubkey(), p.NATIVE_MINT)
        left = (await client.get_token_account_balance(wrapped)).value
        fees = associated_token_address(FEE_WALLET, p.NATIVE_MINT)
        protocol = (await client.get_token_account_balance(fees)).value
        escrow = (
            await client.get_token_account_balance(associated_token_address(genesis, mint))
        ).value
        curve = decode_account_as(
            "BondingCurveBucketV2",
            bytes((await client.get_account_info(buy.bucket.address)).value.data),
        )
        rent = (await client.get_minimum_balance_for_rent_exemption(165)).value
        spent = 5 * 10**9 - await ctx.rpc.balance(buyer.pubkey())
    assert record.state == "registered", (record.last_error, record.error_details)
    signed = [VersionedTransaction.from_bytes(raw) for raw in record.current.signed]
    by_buyer = [n for n, tx in enumerate(signed) if buyer.pubkey() in required_signers(tx)]
    # It signs the curve's add (the program reserves the first buy to it) and its swap.
    adds = [n for n, tx in enumerate(signed) if ADD_CURVE in genesis_names(tx)]
    assert by_buyer == [*adds, len(signed) - 1] and len(adds) == 1
    assert genesis_names(signed[-1]) == ["swapBondingCurveV2"]
    swap = buy.swap  # no buy ahead of it: the opening price
    assert swap.paid == 2 * 10**9 and int(bought.amount) == buy.tokens > 0
    assert int(escrow.amount) == 10**15 - buy.tokens  # out of the genesis account's escrow
    assert curve["bucket"]["baseTokenBalance"] == buy.bucket.allocation - buy.tokens
    assert curve["bucket"]["quoteTokenBalance"] == swap.net
    assert curve["creatorFeeAccrued"] == swap.creator_fee
    assert curve["extensions"]["firstBuyDone"] is True
    # The buyer paid its SOL and the rent of its two token accounts (wrapped SOL, the
    # mint's); the creator paid every fee.
    assert spent == 2 * 10**9 + 2 * rent
    assert record.launch_order.secrets == ("bondingCurve.firstBuyWallet",)
    journal = (tmp_path / "sandbox" / "journal.db").read_bytes()
    assert all(form not in journal for form in forms(bytes(buyer)))
    assert str(source).encode() not in journal  # not even where the key lives
    # Every lamport it paid went in: the protocol fee to the fee wallet, the rest to the
    # curve's quote account (its reserves and the creator fee, kept until claimed).
    assert int(protocol.amount) == swap.protocol_fee
    assert (int(left.amount), int(vault.amount)) == (0, swap.paid - swap.protocol_fee), (
        "the protocol fee must come out of the buyer's wrapped SOL, not the curve's"
    )


async def test_a_resume_elsewhere_reads_the_buyer_again_from_the_file(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    buyer, source, path = first_buy_launch(tmp_path, "resumed", "1")
    async with context_for(sandbox, tmp_path) as ctx:
        await airdrop(ctx, buyer.pubkey(), 3)
        key = (await validate(ctx, path)).key
        await run_step(Step.CREATE, ctx, key)  # then this process is gone
    moved = source.with_name("elsewhere.json")
    source.rename(moved)
    async with context_for(sandbox, tmp_path) as ctx:  # another process: no secrets held
        with pytest.raises(SecretUnavailable, match=r"bondingCurve\.firstBuyWallet") as caught:
            await run_launch(ctx, key)
        assert (await ctx.journal.get(key)).state is LaunchState.CREATED  # left where it was
        assert all(f.decode(errors="ignore") not in str(caught.value) for f in forms(bytes(buyer)))
    moved.rename(source)
    async with context_for(sandbox, tmp_path) as ctx:
        record = await run_launch(ctx, key)
    assert record.state == "registered", record.last_error
    assert stats(sandbox)["launches"]["created"] == 1


async def test_an_expired_tail_with_the_first_buyer_is_re_signed_by_both(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    buyer, _, path = first_buy_launch(tmp_path, "tail-buy", "1")
    async with context_for(sandbox, tmp_path) as ctx:
        await airdrop(ctx, buyer.pubkey(), 3)
        key = (await validate(ctx, path)).key
        attempt = await killed_after_first(ctx, key)
        advance(sandbox, 160)
    async with context_for(sandbox, tmp_path) as ctx:  # resumed elsewhere, too
        record = await run_launch(ctx, key)
    assert record.state == "registered" and record.attempt == 1, record.last_error
    assert record.current.sends[-1].replaced == (attempt.signatures[-1],)
    tail = VersionedTransaction.from_bytes(record.current.signed[-1])
    assert buyer.pubkey() in required_signers(tail) and all(tail.verify_with_results())
