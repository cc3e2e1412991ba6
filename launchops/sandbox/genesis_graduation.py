"""A launch's Raydium CPMM bucket after its curve, as the sandbox plays it: the graduation
(`graduateToRaydiumCpmmV2`, sent by a crank once the curve sold out) and the creator's
claim of the pool's creator fee (`claimRaydiumCreatorFeeV2`).

The graduation checks what the program checks: the launch is final, the bucket is one of
its Raydium CPMM buckets, not graduated yet (`BucketAlreadyGraduated`), its start met and
the curve that feeds it sold out (`GraduationNotStarted`), every Raydium account the one
`deriveRaydiumPDAsV2` derives (the pool state a Genesis PDA of the bucket). Then the
curve's end behavior that sends its raise to the bucket is processed (the program's
`triggerBehaviorsV2`, folded in: the curve is not among the graduation's accounts), and
the pool is made as Raydium's CPI would: the bucket's base tokens out of the genesis
account's escrow and the quote out of the bucket signer's into the pool's vaults (token
accounts of the pool authority), the LP tokens minted to the bucket signer. The bucket
records the pool (`poolState`, `graduatedBaseTokenAmount`, `quoteTokenInSigner`: the
quote paired, `lpTokenBalance`, the price), and the curve's creator fee carries over to
it when it has none of its own.

Simpler than Raydium: the pool state and observation accounts are made empty (owned by
the CP-Swap program; no PoolState layout), no create-pool fee is charged, the LP mint's
supply is what the bucket signer holds (the pool's locked 100 are not minted).

A pool trade is Raydium's instruction, not played: the sandbox's buy sends its SOL to the
quote vault and the creator fee to the bucket signer's quote account, and `accrue_pool_fee`
adds that fee to the bucket's `creatorFeeAccrued`, as Raydium's fee collection
(`collectRaydiumCpmmFeesWithCreatorFeeV2`) would.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from solders.account import Account
from solders.pubkey import Pubkey

import launchops.genesis.accounts as ga
from launchops.genesis.pdas import (
    GENESIS_PROGRAM,
    TOKEN_PROGRAM,
    associated_token_address,
    find_bucket_v2,
    find_raydium_signer,
)
from launchops.genesis.raydium import (
    CP_SWAP_DEVNET,
    CP_SWAP_PROGRAMS,
    LOCKED_LP,
    LP_DECIMALS,
    derive_raydium_pool,
)
from launchops.sandbox.genesis_play import (
    HANDLERS,
    Roles,
    ensure_token_account,
    expect,
    read_bucket,
    read_genesis,
    role,
    signed,
)
from launchops.sandbox.genesis_swaps import met, move_tokens
from launchops.sandbox.play import Play, Refused
from launchops.sandbox.token_state import ACCOUNT_SIZE, is_native, mint_data, token_account_data

if TYPE_CHECKING:
    from launchops.sandbox.chain import Chain

RAYDIUM = "RaydiumCpmmBucketV2"
CURVE = "BondingCurveBucketV2"
CONSTRAINT_SEEDS = 2006  # Anchor's error when an account is not its PDA (CP-Swap's CPI)


def _feeding_curve(
    play: Play, genesis_key: Pubkey, count: int, bucket_key: Pubkey
) -> tuple[Pubkey, dict[str, Any], dict[str, Any]] | None:
    """The launch's curve whose end behavior sends its raise to `bucket_key`, that
    behavior: (curve, its account, the behavior); None when no curve does."""
    for index in range(count):
        key = find_bucket_v2(CURVE, genesis_key, index)[0]
        held = play.account(key)
        if held is None or held.owner != GENESIS_PROGRAM:
            break
        curve = read_bucket(play, key, CURVE, genesis_key)
        for behavior in curve["endBehaviors"]:
            if behavior.get("destinationBucket") == bucket_key:
                return key, curve, behavior
    return None


def _take_raise(
    play: Play, genesis: dict[str, Any], bucket_key: Pubkey, pool: dict[str, Any], roles: Roles
) -> None:
    """The sold-out curve's raise, sent to the bucket signer (its end behavior processed);
    the curve's creator fee carried over to the bucket when it has none."""
    found = _feeding_curve(play, role(roles, "genesisAccount"), genesis["bucketCount"], bucket_key)
    if found is None:
        return
    curve_key, curve, behavior = found
    expect(curve["bucket"]["baseTokenBalance"] == 0, "GraduationNotStarted", "not sold out")
    if not behavior["processed"]:
        sent = curve["bucket"]["quoteTokenBalance"] * behavior["percentageBps"] // 10_000
        source = associated_token_address(curve_key, genesis["quoteMint"])
        move_tokens(play, source, role(roles, "bucketSignerQuoteTokenAccount"), sent)
        curve["bucket"]["quoteTokenBalance"] -= sent
        behavior["processed"] = True
        play.set_data(curve_key, ga.encode_account(CURVE, curve))
        pool["quoteTokenInSigner"] += sent
    fee = curve["extensions"].get("creatorFee")
    if fee is not None and not pool["extensions"].get("creatorFee"):
        pool["extensions"]["creatorFee"] = {"wallet": fee["wallet"]}


def _check_pool_accounts(play: Play, pool: dict[str, Any], bucket: Pubkey, roles: Roles) -> None:
    """Every Raydium account of the graduation the one the JS client derives."""
    program = role(roles, "raydiumProgram")
    expect(program in CP_SWAP_PROGRAMS, "InvalidRaydiumProgram", str(program))
    env = "devnet" if program == CP_SWAP_DEVNET else "mainnet"
    mint, quote = role(roles, "baseMint"), role(roles, "quoteMint")
    plain = derive_raydium_pool(mint, bucket, quote, env)
    with_fee = derive_raydium_pool(mint, bucket, quote, env, creator_fee=True)
    config = role(roles, "ammConfig")
    expect(config in (plain["ammConfig"], with_fee["ammConfig"]), "InvalidRaydiumAmmConfig")
    expect(roles["poolState"] == plain["poolState"], "InvalidPoolStatePda")
    expect(roles["bucketSigner"] == pool["bucketSigner"], "InvalidRaydiumBucketSigner")
    expect(roles["raydiumSigner"] == find_raydium_signer()[0], "InvalidRaydiumSigner")
    expect(roles["permission"] == plain["permission"], "InvalidRaydiumPermissionPda")
    for name in ("poolAuthority", "lpMint", "baseVault", "quoteVault", "observationState"):
        if roles[name] != plain[name]:
            raise Refused({"Custom": CONSTRAINT_SEEDS}, f"{name} {roles[name]} is not the PDA")
    expect(roles["createPoolFee"] == plain["createPoolFee"], "InvalidAccount", "createPoolFee")
    signer = pool["bucketSigner"]
    for name, owner, of in (
        ("genesisBaseTokenAccount", role(roles, "genesisAccount"), mint),
        ("bucketSignerQuoteTokenAccount", signer, quote),
        ("bucketSignerLpTokenAccount", signer, plain["lpMint"]),
    ):
        expect(roles[name] == associated_token_address(owner, of), "InvalidAtaDerivation", name)


def _make_pool(play: Play, roles: Roles, base: int, quote: int, payer: Pubkey) -> int:
    """The CP-Swap pool's accounts and its deposit (as its CPI would); its LP tokens,
    minted to the bucket signer."""
    authority, program = role(roles, "poolAuthority"), role(roles, "raydiumProgram")
    mint, quote_mint = role(roles, "baseMint"), role(roles, "quoteMint")
    play.make(role(roles, "poolState"), program, b"", payer)
    play.make(role(roles, "observationState"), program, b"", payer)
    rent = play.chain.rent_exempt(ACCOUNT_SIZE) if is_native(quote_mint) else None
    vaults = (("baseVault", mint, None), ("quoteVault", quote_mint, rent))
    for name, of, native in vaults:
        play.make(
            role(roles, name), TOKEN_PROGRAM, token_account_data(of, authority, 0, native), payer
        )
    move_tokens(play, role(roles, "genesisBaseTokenAccount"), role(roles, "baseVault"), base)
    move_tokens(
        play, role(roles, "bucketSignerQuoteTokenAccount"), role(roles, "quoteVault"), quote
    )
    lp = math.isqrt(base * quote) - LOCKED_LP
    expect(lp > 0, "InsufficientFunds", "too little liquidity for a pool")
    lp_mint = role(roles, "lpMint")
    play.make(lp_mint, TOKEN_PROGRAM, mint_data(authority, lp, LP_DECIMALS, None), payer)
    signer = role(roles, "bucketSigner")
    account = token_account_data(lp_mint, signer, lp)
    play.make(role(roles, "bucketSignerLpTokenAccount"), TOKEN_PROGRAM, account, payer)
    return lp


def _graduate(play: Play, args: dict[str, Any], roles: Roles) -> None:
    genesis_key = role(roles, "genesisAccount")
    genesis = read_genesis(play, genesis_key)
    expect(genesis["finalized"], "GenesisAccountNotFinalized")
    bucket_key = role(roles, "bucket")
    pool = read_bucket(play, bucket_key, RAYDIUM, genesis_key)
    expect(pool["poolState"] == Pubkey.default(), "BucketAlreadyGraduated", str(bucket_key))
    expect(roles["baseMint"] == genesis["baseMint"], "InvalidMintForGenesisAccount")
    expect(roles["quoteMint"] == genesis["quoteMint"], "InvalidQuoteMintForGenesisAccount")
    payer = role(roles, "payer")
    signed(play, payer)
    _check_pool_accounts(play, pool, bucket_key, roles)
    expect(met(pool["startCondition"], int(time.time())), "GraduationNotStarted")
    _take_raise(play, genesis, bucket_key, pool, roles)
    base, quote = pool["bucket"]["baseTokenBalance"], pool["quoteTokenInSigner"]
    expect(base > 0 and quote > 0, "RaydiumBucketNotFunded", f"{base} base, {quote} quote")
    pool["lpTokenBalance"] = _make_pool(play, roles, base, quote, payer)
    pool["bucket"]["baseTokenBalance"] = 0
    pool.update(
        poolState=role(roles, "poolState"),
        graduatedBaseTokenAmount=base,
        priceNumerator=quote,
        priceDenominator=base,
    )
    play.resize(bucket_key, ga.encode_account(RAYDIUM, pool), payer)
    play.logs.append(f"Program log: graduated {base} base units and {quote} quote to the pool")


def _claim_pool_fee(play: Play, args: dict[str, Any], roles: Roles) -> None:
    genesis_key = role(roles, "genesisAccount")
    genesis = read_genesis(play, genesis_key)
    bucket_key = role(roles, "bucket")
    pool = read_bucket(play, bucket_key, RAYDIUM, genesis_key)
    expect(roles["baseMint"] == genesis["baseMint"], "InvalidMintForGenesisAccount")
    quote = genesis["quoteMint"]
    expect(roles["quoteMint"] == quote, "InvalidQuoteMintForGenesisAccount")
    signer = role(roles, "bucketSigner")
    expect(signer == pool["bucketSigner"], "InvalidRaydiumBucketSigner")
    source = role(roles, "bucketSignerQuoteTokenAccount")
    expect(source == associated_token_address(signer, quote), "InvalidAtaDerivation")
    fee = pool["extensions"].get("creatorFee")
    wallet = role(roles, "creatorFeeWallet")
    expect(bool(fee) and fee["wallet"] == wallet, "InvalidCreatorFeeWallet", str(wallet))
    due = pool["creatorFeeAccrued"] - pool["creatorFeeClaimed"]
    expect(due > 0, "InsufficientFunds", "no creator fee to claim")
    target = role(roles, "creatorFeeWalletQuoteTokenAccount")
    expect(target == associated_token_address(wallet, quote), "InvalidAtaDerivation")
    payer = role(roles, "payer")
    signed(play, payer)
    ensure_token_account(play, target, quote, wallet, payer)
    move_tokens(play, source, target, due)
    pool["creatorFeeClaimed"] += due
    play.set_data(bucket_key, ga.encode_account(RAYDIUM, pool))


def accrue_pool_fee(chain: Chain, bucket: Pubkey, fee: int) -> None:
    """A pool trade's creator fee, landed in the bucket signer's quote account, counted
    in the bucket (the sandbox's stand-in for Raydium's fee collection)."""
    held = chain.account(bucket)
    if held is None or held.owner != GENESIS_PROGRAM:
        raise ValueError(f"{bucket} is not a Raydium CPMM bucket")
    pool = ga.decode_account_as(RAYDIUM, bytes(held.data))
    pool["creatorFeeAccrued"] += fee
    data = ga.encode_account(RAYDIUM, pool)
    chain.set_account(bucket, Account(held.lamports, data, held.owner, False, 0))


HANDLERS.update(graduateToRaydiumCpmmV2=_graduate, claimRaydiumCreatorFeeV2=_claim_pool_fee)

__all__ = ["accrue_pool_fee"]
