"""A curve's life after it sells out, as the sandbox (standing for the service's backend)
makes it: the crank that lands `graduateToRaydiumCpmmV2` on the launch's Raydium CPMM
bucket, played as every Genesis instruction is (`genesis_graduation`), paid and signed
by a key of the sandbox's own; and a trade in the pool it made.

A pool trade is Raydium CP-Swap's swap in reality; the sandbox cannot run Raydium, so a
pool buy is the buyer's own transfers, landed for real: its SOL (less the creator fee)
into the pool's quote vault, the creator fee into the Raydium bucket signer's quote
account (both wrapped SOL, synced), then the fee counted in the bucket's
`creatorFeeAccrued` by the sandbox, as Raydium's fee collection would. The buyer gets no
tokens from the pool (no launchops path reads them).
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction
from spl.token.instructions import sync_native
from spl.token.models import SyncNativeParams

from launchops.genesis.instructions import build_instruction
from launchops.genesis.pdas import (
    TOKEN_PROGRAM,
    associated_token_address,
    find_raydium_bucket_signer,
)
from launchops.genesis.raydium import derive_raydium_pool
from launchops.sandbox.chain import Chain, Landed
from launchops.sandbox.genesis_create import PlannedBucket
from launchops.sandbox.genesis_graduation import accrue_pool_fee
from launchops.sandbox.genesis_verify import read


class Curve(Protocol):
    """What the crank needs of a curve launch (`rewards.Curve`, frozen: read-only)."""

    @property
    def network(self) -> str: ...
    @property
    def launch(self) -> Any: ...  # its GenesisPlan
    @property
    def fee_wallet(self) -> Pubkey | None: ...
    @property
    def pool(self) -> PlannedBucket | None: ...  # its Raydium CPMM bucket


# The backend's key that sends graduations (the same on every sandbox).
CRANK = Keypair.from_seed(hashlib.sha256(b"launchops-sandbox:graduation-crank").digest())
CRANK_FUNDS = 10 * 10**9  # lamports it is given whenever it has less than a tenth of them


def env_of(network: str) -> str:
    """The Raydium environment of a launch's network (mainnet unless devnet)."""
    return "devnet" if "devnet" in network else "mainnet"


def pool_accounts(curve: Curve, pool_bucket: Pubkey) -> dict[str, Pubkey]:
    """The graduation's Raydium accounts (the creator-fee AMM config when the curve
    has a creator fee), as the JS client derives them."""
    launch = curve.launch
    return derive_raydium_pool(
        launch.mint,
        pool_bucket,
        launch.quote_mint,
        env_of(curve.network),
        creator_fee=curve.fee_wallet is not None,
    )


def pool_of(chain: Chain, curve: Curve) -> dict[str, Any] | None:
    """The launch's Raydium CPMM bucket once it holds a pool (graduated), else None."""
    if curve.pool is None:
        return None
    bucket = read(chain, curve.pool.address, "RaydiumCpmmBucketV2")
    if bucket is None or bucket["poolState"] == Pubkey.default():
        return None
    return bucket


def graduate(chain: Chain, curve: Curve) -> Landed | None:
    """The crank's `graduateToRaydiumCpmmV2`, landed now; None when the launch has no
    Raydium bucket to graduate to."""
    if curve.pool is None:
        return None
    crank = CRANK.pubkey()
    held = chain.account(crank)
    if held is None or held.lamports < CRANK_FUNDS // 10:
        chain.airdrop(crank, CRANK_FUNDS)
    launch = curve.launch
    accounts = {
        **pool_accounts(curve, curve.pool.address),
        "genesisAccount": launch.genesis,
        "bucket": curve.pool.address,
        "baseMint": launch.mint,
        "quoteMint": launch.quote_mint,
        "payer": crank,
    }
    ix = build_instruction("graduateToRaydiumCpmmV2", {}, accounts, payer=crank)
    blockhash, _ = chain.latest_blockhash()
    tx = VersionedTransaction(MessageV0.try_compile(crank, [ix], [], blockhash), [CRANK])
    return chain.land_now(tx)


def _wrapped(buyer: Pubkey, account: Pubkey, lamports: int) -> list[Instruction]:
    if lamports <= 0:
        return []
    move = TransferParams(from_pubkey=buyer, to_pubkey=account, lamports=lamports)
    synced = SyncNativeParams(program_id=TOKEN_PROGRAM, account=account)
    return [transfer(move), sync_native(synced)]


def pool_trade(curve: Curve, buyer: Pubkey, paid: int, creator_fee: int) -> list[Instruction]:
    """A buy in the graduated pool, as the sandbox makes it (see the module's doc)."""
    assert curve.pool is not None
    vault = pool_accounts(curve, curve.pool.address)["quoteVault"]
    return [
        *_wrapped(buyer, vault, paid - creator_fee),
        *_wrapped(buyer, fee_account(curve), creator_fee),
    ]


def fee_account(curve: Curve) -> Pubkey:
    """Where the pool's creator fees wait to be claimed: the Raydium bucket signer's
    quote token account."""
    assert curve.pool is not None
    owner = find_raydium_bucket_signer(curve.pool.address)[0]
    return associated_token_address(owner, curve.launch.quote_mint)


def accrued(chain: Chain, curve: Curve, fee: int) -> None:
    """A landed pool trade's creator fee, counted in the Raydium bucket."""
    if curve.pool is not None and fee > 0:
        accrue_pool_fee(chain, curve.pool.address, fee)


__all__ = [
    "CRANK",
    "accrued",
    "env_of",
    "fee_account",
    "graduate",
    "pool_accounts",
    "pool_of",
    "pool_trade",
]
