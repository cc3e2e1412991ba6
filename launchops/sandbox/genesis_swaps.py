"""The Genesis program after the launch, as the sandbox plays it: a buy on a bonding
curve (`swapBondingCurveV2`) and the creator's claim of its fees
(`claimBondingCurveCreatorFeeV2`). Tokens move as the token program moves them: the
buyer's wrapped SOL into the curve's quote account (its protocol fee into the fee
wallet's), the tokens out of the genesis account's escrow into the buyer's token account;
the curve's bucket keeps its balances and its creator fees.

A curve swaps once its launch is final and until it has sold every token (then it has
graduated: its swap end is met). Sells are not played (no launchops path sells).
"""

from __future__ import annotations

import time
from typing import Any

from solders.account import Account
from solders.pubkey import Pubkey

import launchops.genesis.accounts as ga
import launchops.genesis.types as t
from launchops.api import programs as p
from launchops.genesis.pdas import FEE_WALLET, GENESIS_PROGRAM, associated_token_address
from launchops.sandbox import bonding
from launchops.sandbox.genesis_play import (
    HANDLERS,
    Roles,
    expect,
    read_bucket,
    read_genesis,
    refuse,
    role,
    signed,
)
from launchops.sandbox.play import Play
from launchops.sandbox.token_state import token_account_data, with_amount


def move_tokens(play: Play, source: Pubkey, target: Pubkey, amount: int) -> None:
    """`amount` from one token account to another of the same mint (wrapped SOL: its
    lamports with it), as the token program's Transfer does."""
    held, into = play.account(source), play.account(target)
    if held is None or into is None:
        raise refuse("InvalidAccount", f"token account {source if held is None else target}")
    origin, destination = (
        p.read_token_account(bytes(held.data)),
        p.read_token_account(bytes(into.data)),
    )
    expect(origin.mint == destination.mint, "InvalidMintForTokenAccount")
    expect(origin.amount >= amount, "InsufficientFunds", f"{source} holds {origin.amount}")
    lamports = amount if origin.mint == p.NATIVE_MINT else 0
    play.write(
        source,
        Account(
            held.lamports - lamports,
            with_amount(bytes(held.data), origin.amount - amount),
            held.owner,
            False,
            0,
        ),
    )
    into = play.account(target)
    assert into is not None
    play.write(
        target,
        Account(
            into.lamports + lamports,
            with_amount(bytes(into.data), destination.amount + amount),
            into.owner,
            False,
            0,
        ),
    )


def met(condition: dict[str, Any], now: int) -> bool:
    kind = condition["__kind"]
    if kind == "Always":
        return True
    if kind == "TimeAbsolute":
        return now >= condition["time"]
    return False  # Never, Triggered (until it is), Uninitialized, relative to a bucket


def _swap(play: Play, args: dict[str, Any], roles: Roles) -> None:
    genesis_key = role(roles, "genesisAccount")
    genesis = read_genesis(play, genesis_key)
    expect(genesis["finalized"], "GenesisAccountNotFinalized")
    expect(args["swapDirection"] == t.SwapDirection.Buy, "InvalidSwapDirection", "sells")
    bucket_key = role(roles, "bucket")
    curve = read_bucket(play, bucket_key, "BondingCurveBucketV2", genesis_key)
    base = curve["bucket"]
    expect(met(curve["swapStartCondition"], int(time.time())), "BondingCurveNotStarted")
    expect(base["baseTokenBalance"] > 0, "BondingCurveEnded")
    owner = roles.get("quoteTokenOwner") or role(roles, "payer")
    signed(play, owner)
    quote, mint = genesis["quoteMint"], genesis["baseMint"]
    expect(roles["baseMint"] == mint, "InvalidMintForGenesisAccount")
    expect(
        roles["bucketQuoteTokenAccount"] == associated_token_address(bucket_key, quote),
        "InvalidAtaDerivation",
    )
    expect(
        roles["feeQuoteTokenAccount"] == associated_token_address(FEE_WALLET, quote),
        "InvalidFeeWallet",
    )
    expect(
        roles["genesisBaseTokenAccount"] == associated_token_address(genesis_key, mint),
        "InvalidAtaDerivation",
    )
    params = curve["constantProductParams"]
    made = bonding.buy(
        params["virtualSol"],
        params["virtualTokens"],
        base["quoteTokenBalance"],
        base["baseTokenBalance"],
        args["amount"],
    )
    expect(made.tokens >= args["minAmountOutScaled"], "InsufficientOutputAmount")
    expect(made.tokens > 0, "InvalidAmount", "buys nothing")
    move_tokens(
        play,
        role(roles, "quoteTokenAccount"),
        role(roles, "bucketQuoteTokenAccount"),
        made.paid - made.protocol_fee,
    )
    move_tokens(  # the protocol's share, out of what the buyer pays
        play,
        role(roles, "quoteTokenAccount"),
        role(roles, "feeQuoteTokenAccount"),
        made.protocol_fee,
    )
    move_tokens(
        play, role(roles, "genesisBaseTokenAccount"), role(roles, "baseTokenAccount"), made.tokens
    )
    base.update(
        baseTokenBalance=base["baseTokenBalance"] - made.tokens,
        quoteTokenBalance=base["quoteTokenBalance"] + made.net,
    )
    curve["creatorFeeAccrued"] += made.creator_fee
    curve["quoteTokenDepositTotal"] += made.net
    extensions = curve["extensions"]
    first = extensions.get("firstBuy")
    if first is not None and first["buyer"] == owner and not extensions["firstBuyDone"]:
        extensions["firstBuyDone"] = True
    play.set_data(bucket_key, ga.encode_account("BondingCurveBucketV2", curve))
    play.logs.append(f"Program log: buy {made.paid} lamports -> {made.tokens} base units")


def _claim_creator_fee(play: Play, args: dict[str, Any], roles: Roles) -> None:
    genesis_key = role(roles, "genesisAccount")
    genesis = read_genesis(play, genesis_key)
    bucket_key = role(roles, "bucket")
    curve = read_bucket(play, bucket_key, "BondingCurveBucketV2", genesis_key)
    fee = curve["extensions"].get("creatorFee")
    wallet = role(roles, "creatorFeeWallet")
    expect(fee is not None and fee["wallet"] == wallet, "InvalidFeeWallet", str(wallet))
    due = curve["creatorFeeAccrued"] - curve["creatorFeeClaimed"]
    expect(due > 0, "InsufficientFunds", "no creator fee to claim")
    quote = genesis["quoteMint"]
    target = role(roles, "creatorFeeWalletQuoteTokenAccount")
    expect(target == associated_token_address(wallet, quote), "InvalidAtaDerivation")
    payer = role(roles, "payer")
    signed(play, payer)
    if play.account(target) is None:
        native = play.chain.rent_exempt(165) if quote == p.NATIVE_MINT else None
        play.make(target, p.TOKEN_PROGRAM, token_account_data(quote, wallet, 0, native), payer)
    move_tokens(play, role(roles, "bucketQuoteTokenAccount"), target, due)
    curve["creatorFeeClaimed"] += due
    play.set_data(bucket_key, ga.encode_account("BondingCurveBucketV2", curve))


HANDLERS.update(swapBondingCurveV2=_swap, claimBondingCurveCreatorFeeV2=_claim_creator_fee)
PROGRAM = GENESIS_PROGRAM

__all__ = ["PROGRAM", "met", "move_tokens"]
