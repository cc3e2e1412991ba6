"""A bonding curve's first buy in the sandbox. The Genesis program does not run here, so
the swap is made of real SPL instructions with the same outcome: the buyer's SOL lands in
the curve's quote account (wrapped SOL at the curve bucket's PDA), and the tokens a
constant-product swap on the curve's virtual reserves gives for it go to the buyer's
token account instead of the curve's bucket. The buyer signs its own SOL transfer, so a
first buyer other than the creator signs the launch's last transaction too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from solders.instruction import Instruction
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from spl.token.instructions import (
    create_idempotent_associated_token_account,
    mint_to_checked,
    sync_native,
)
from spl.token.models import MintToCheckedParams, SyncNativeParams

from launchops.api import programs as p
from launchops.api.allocations import (
    BondingCurveAllocation,
)
from launchops.api.amounts import base_units, lamports
from launchops.api.models import ErrorDetail, LaunchConfig

SOL_DECIMALS = 9


@dataclass(frozen=True)
class FirstBuy:
    buyer: Pubkey
    lamports: int  # SOL paid into the curve
    tokens: int  # base units the curve gives for it
    vault: Pubkey  # the curve's quote account: wrapped SOL owned by its bucket PDA
    account: Pubkey  # the buyer's token account


def first_buy(config: LaunchConfig, genesis: Pubkey, mint: Pubkey) -> FirstBuy | None:
    """The launch's first buy, when its bonding curve has one enabled."""
    curve = next((a for a in config.allocations if isinstance(a, BondingCurveAllocation)), None)
    if curve is None or not curve.bonding_curve_v2.first_buy.enabled:
        return None
    settings = curve.bonding_curve_v2
    buyer, amount = settings.first_buy.buyer, settings.first_buy.amount
    assert buyer is not None and amount is not None  # an enabled first buy has both
    paid = lamports(amount)
    virtual_base = base_units(settings.virtual_base_tokens, config.decimals)
    virtual_quote = base_units(settings.virtual_quote_tokens, SOL_DECIMALS)
    tokens = min(virtual_base * paid // (virtual_quote + paid), curve_supply(curve, config))
    owner = p.bucket_pda(curve.type, genesis, 0)
    return FirstBuy(
        buyer=buyer,
        lamports=paid,
        tokens=tokens,
        vault=p.token_account_address(owner, p.NATIVE_MINT, p.TOKEN_PROGRAM),
        account=p.token_account_address(buyer, mint),
    )


def curve_supply(curve: BondingCurveAllocation, config: LaunchConfig) -> int:
    return base_units(curve.supply, config.decimals)


def instructions(
    buy: FirstBuy, config: LaunchConfig, creator: Pubkey, genesis: Pubkey, mint: Pubkey
) -> list[Instruction]:
    """The swap's outcome in SPL instructions (the creator pays the accounts' rent and is
    the mint's authority until the launch revokes it)."""
    owner = p.bucket_pda("bondingCurveV2", genesis, 0)
    return [
        create_idempotent_associated_token_account(creator, owner, p.NATIVE_MINT, p.TOKEN_PROGRAM),
        transfer(TransferParams(from_pubkey=buy.buyer, to_pubkey=buy.vault, lamports=buy.lamports)),
        sync_native(SyncNativeParams(program_id=p.TOKEN_PROGRAM, account=buy.vault)),
        *mint_into(creator, mint, buy.buyer, buy.account, buy.tokens, config.decimals),
    ]


def mint_into(
    creator: Pubkey, mint: Pubkey, owner: Pubkey, account: Pubkey, amount: int, decimals: int
) -> list[Instruction]:
    """`owner`'s token account for `mint` (made if missing, the creator paying), then
    `amount` minted into it by the creator, the mint's authority."""
    return [
        create_idempotent_associated_token_account(creator, owner, mint, p.TOKEN_2022_PROGRAM),
        mint_to_checked(
            MintToCheckedParams(
                program_id=p.TOKEN_2022_PROGRAM,
                mint=mint,
                dest=account,
                mint_authority=creator,
                amount=amount,
                decimals=decimals,
            )
        ),
    ]


def mismatches(buy: FirstBuy, read_amount: Callable[[Pubkey], int | None]) -> list[ErrorDetail]:
    """What the chain shows against the first buy: the SOL in the curve's quote account,
    the tokens in the buyer's."""
    found = []
    for where, key, want, unit in (
        ("firstBuy.amount", buy.vault, buy.lamports, "lamports of wrapped SOL"),
        ("firstBuy.buyer", buy.account, buy.tokens, "base units"),
    ):
        got = read_amount(key)
        if got != want:
            shown = "no account" if got is None else f"{got} {unit}"
            found.append(
                ErrorDetail(
                    path=["allocations", "Bonding Curve", where],
                    message=f"{key} holds {shown}, expected {want} {unit}",
                )
            )
    return found


__all__ = ["FirstBuy", "first_buy", "instructions", "mismatches"]
