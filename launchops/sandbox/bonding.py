"""A bonding curve's price, and its first buy. The curve is a constant product over its
virtual reserves (`virtualSol` and `virtualTokens` of its bucket) plus what it has taken
in and has left to sell; a buy pays a protocol fee (to the fee wallet) and a creator fee (kept
in the curve's quote account until claimed) out of its SOL, and the rest buys tokens.

The first buy is the buyer's `swapBondingCurveV2` in a transaction of its own after the
launch is final (its wrapped SOL account made and funded, its token account made): the
swap's price is the curve's when it lands, so a buy that got in first (a sniper) leaves
it fewer tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from solders.instruction import Instruction
from solders.pubkey import Pubkey

from launchops.api.allocations import BondingCurveAllocation
from launchops.api.amounts import base_units, lamports
from launchops.api.models import ErrorDetail, LaunchConfig
from launchops.genesis.pdas import associated_token_address
from launchops.sandbox.genesis_create import GenesisPlan, PlannedBucket, quote_units
from launchops.sandbox.genesis_tx import first_buy_instructions

SOL_DECIMALS = 9
PROTOCOL_FEE_BPS = 50
CREATOR_FEE_BPS = 60


@dataclass(frozen=True)
class Swap:
    """What a buy of `paid` lamports does: the fees out of it, the tokens it gets."""

    paid: int
    protocol_fee: int
    creator_fee: int
    tokens: int

    @property
    def net(self) -> int:
        """What goes into the curve's reserves."""
        return self.paid - self.protocol_fee - self.creator_fee


def buy(virtual_sol: int, virtual_tokens: int, taken: int, left: int, paid: int) -> Swap:
    """A buy of `paid` lamports from a curve that has taken `taken` lamports into its
    reserves so far and has `left` tokens to sell: a constant product on (virtual SOL +
    SOL taken, virtual tokens + tokens left), what it gives capped at what is left (the
    buy that takes the last token sells the curve out)."""
    protocol = paid * PROTOCOL_FEE_BPS // 10_000
    creator = paid * CREATOR_FEE_BPS // 10_000
    net = paid - protocol - creator
    sol, tokens = virtual_sol + taken, virtual_tokens + left
    after = -(-(tokens * sol) // (sol + net)) if net > 0 else tokens
    return Swap(paid, protocol, creator, max(0, min(left, tokens - after)))


@dataclass(frozen=True)
class FirstBuy:
    buyer: Pubkey
    bucket: PlannedBucket  # the curve's
    swap: Swap  # at the opening price
    vault: Pubkey  # the curve's quote account: wrapped SOL of its bucket
    account: Pubkey  # the buyer's token account

    @property
    def lamports(self) -> int:
        return self.swap.paid

    @property
    def tokens(self) -> int:
        return self.swap.tokens


def first_buy(config: LaunchConfig, launch: GenesisPlan) -> FirstBuy | None:
    """The launch's first buy, when its bonding curve has one enabled."""
    curve = next((a for a in config.allocations if isinstance(a, BondingCurveAllocation)), None)
    if curve is None or not curve.bonding_curve_v2.first_buy.enabled:
        return None
    settings = curve.bonding_curve_v2
    buyer, amount = settings.first_buy.buyer, settings.first_buy.amount
    assert buyer is not None and amount is not None  # an enabled first buy has both
    [bucket] = launch.of("bondingCurveV2")
    opening = buy(
        quote_units(settings.virtual_quote_tokens, launch.quote_mint),
        base_units(settings.virtual_base_tokens, config.decimals),
        0,
        bucket.allocation,
        lamports(amount),
    )
    return FirstBuy(
        buyer=buyer,
        bucket=bucket,
        swap=opening,
        vault=associated_token_address(bucket.address, launch.quote_mint),
        account=associated_token_address(buyer, launch.mint),
    )


def instructions(first: FirstBuy, launch: GenesisPlan) -> list[Instruction]:
    """The buyer's swap, as its client sends it (no floor on what it gets: the curve's
    price when it lands)."""
    return first_buy_instructions(launch, first.bucket, first.buyer, first.lamports, 0)


def mismatches(first: FirstBuy, read_amount: Callable[[Pubkey], int | None]) -> list[ErrorDetail]:
    """What the chain shows against the first buy: the buyer's tokens (at most the opening
    price's: a buy ahead of it moved the price)."""
    got = read_amount(first.account)
    if got is not None and 0 < got <= first.tokens:
        return []
    shown = "no account" if got is None else f"{got} base units"
    return [
        ErrorDetail(
            path=["allocations", "Bonding Curve", "firstBuy.buyer"],
            message=f"{first.account} holds {shown}, expected up to {first.tokens} base units",
        )
    ]


__all__ = ["FirstBuy", "Swap", "buy", "first_buy", "instructions", "mismatches"]
