"""Swaps on the sandbox's bonding curves, the creator fees they accrue, and claims of them.

A swap (`POST /_sandbox/buy`, the sniper) is a throwaway buyer's `swapBondingCurveV2`,
the sandbox funding it, played as every Genesis instruction is (`genesis_swaps`): its SOL
into the curve's quote account less the protocol fee (to the fee wallet's), the tokens
out of the genesis account's escrow; the curve's bucket accrues the creator fee. The buy
that sells the curve out is followed at once by the crank's `graduateToRaydiumCpmmV2`
(`graduation`): the launch's Raydium CPMM bucket then holds a pool, and a buy after that
is a trade in that pool (its SOL to the pool's quote vault, its creator fee accrued in the
Raydium bucket).

A claim is one transaction per bucket with fees accrued and not claimed, each a Genesis
instruction the payer signs: a curve's `claimBondingCurveCreatorFeeV2`, a pool's
`claimRaydiumCreatorFeeV2`, both paying into the creator fee wallet's wrapped SOL account
(made if missing, the payer paying its rent). A bucket counts what was claimed: a second
claim of the same fees fails on chain, never pays twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.after import ClaimRewardsRequest, RewardsClaim
from launchops.api.allocations import (
    BondingCurveAllocation,
)
from launchops.api.fields import iso_utc
from launchops.api.launches import BlockhashInfo
from launchops.api.models import LaunchConfig
from launchops.genesis.instructions import build_instruction
from launchops.sandbox import graduation
from launchops.sandbox.chain import Chain, Landed
from launchops.sandbox.genesis_create import PlannedBucket
from launchops.sandbox.genesis_tx import first_buy_instructions
from launchops.sandbox.genesis_verify import read
from launchops.sandbox.launches import launch_plan, partly_signed
from launchops.sandbox.store import SandboxStore

PROTOCOL_FEE_BPS = 50
CREATOR_FEE_BPS = 60
BUYER_SPARE = 10_000_000  # lamports a buyer gets beyond its swap: fees and rent
MAX_BUY_LAMPORTS = 10_000 * 10**9


class SwapRefused(Exception):
    """A buy the sandbox cannot make (no such curve, not on chain yet)."""


@dataclass(frozen=True)
class Curve:
    genesis: str
    network: str
    config: LaunchConfig
    bucket: PlannedBucket  # the curve's
    vault: Pubkey  # its quote account (wrapped SOL)
    launch: Any  # its GenesisPlan
    fee_wallet: Pubkey | None  # the creator fee wallet, None when creator fees are off
    pool: PlannedBucket | None  # the Raydium CPMM bucket it graduates to, if it has one


class Rewards:
    def __init__(self, store: SandboxStore, chain: Chain) -> None:
        self.store = store
        self.chain = chain

    def curve(self, genesis: str) -> Curve | None:
        created = self.store.get("create", genesis)
        if created is None or created["launch"].get("type") != "bondingCurve":
            return None
        config = LaunchConfig.model_validate(created["launch"])
        allocation = next(a for a in config.allocations if isinstance(a, BondingCurveAllocation))
        mint = Pubkey.from_string(created["mint"])
        launch = launch_plan(self.chain, config, Pubkey.from_string(genesis), mint)
        [bucket] = launch.of("bondingCurveV2")
        pools = [b for b in launch.of("RaydiumLP") if b.parent == launch.buckets.index(bucket)]
        fee = allocation.bonding_curve_v2.creator_fee
        return Curve(
            genesis=genesis,
            network=created["network"],
            config=config,
            bucket=bucket,
            vault=p.token_account_address(bucket.address, p.NATIVE_MINT, p.TOKEN_PROGRAM),
            launch=launch,
            fee_wallet=fee.wallet if fee.enabled else None,
            pool=pools[0] if pools else None,
        )

    def remaining(self, curve: Curve) -> int | None:
        """Tokens the curve has left to sell; None before its launch is final."""
        genesis = read(self.chain, curve.launch.genesis, "GenesisAccountV2")
        bucket = read(self.chain, curve.bucket.address, "BondingCurveBucketV2")
        if genesis is None or bucket is None or not genesis["finalized"]:
            return None
        return int(bucket["bucket"]["baseTokenBalance"])

    # ── buys ────────────────────────────────────────────────────────────────

    def buy(self, genesis: str, paid: int) -> dict[str, Any]:
        """A swap of `paid` lamports (fees included) on the launch's curve, or in its
        Raydium pool once the curve sold out and graduated; what it did."""
        curve = self.curve(genesis)
        if curve is None:
            raise SwapRefused("No bonding curve launch with this genesis account")
        remaining = self.remaining(curve)
        if remaining is None:
            raise SwapRefused("The launch's transactions have not landed")
        if remaining == 0 and graduation.pool_of(self.chain, curve) is None:
            self._graduate(curve)  # sold out, not graduated yet: the crank again
            if graduation.pool_of(self.chain, curve) is None:
                raise SwapRefused("The curve sold out and has no pool to trade in")
        protocol = paid * PROTOCOL_FEE_BPS // 10_000
        creator = paid * CREATOR_FEE_BPS // 10_000 if curve.fee_wallet else 0
        kind = "raydium" if remaining == 0 else "bondingCurve"
        buyer = Keypair()
        self.chain.airdrop(buyer.pubkey(), paid + BUYER_SPARE)
        if kind == "raydium":
            ixs = graduation.pool_trade(curve, buyer.pubkey(), paid, creator)
            fee_account = graduation.fee_account(curve)
        else:
            ixs = first_buy_instructions(curve.launch, curve.bucket, buyer.pubkey(), paid, 0)
            fee_account = curve.vault
        ixs.append(p.memo(f"sandbox swap on {genesis}", buyer.pubkey()))
        blockhash, _ = self.chain.latest_blockhash()
        tx = VersionedTransaction(
            MessageV0.try_compile(buyer.pubkey(), ixs, [], blockhash), [buyer]
        )
        landed = self.chain.land_now(tx)
        if landed is None or landed.err is not None:
            raise SwapRefused(f"the swap failed on chain: {landed.err if landed else 'expired'}")
        tokens = 0
        if kind == "raydium":
            graduation.accrued(self.chain, curve, creator)
        else:
            account = p.token_account_address(buyer.pubkey(), curve.launch.mint, p.TOKEN_PROGRAM)
            tokens = p.read_token_account(bytes(self.chain.account(account).data)).amount
        sold_out = kind == "bondingCurve" and self.remaining(curve) == 0
        self._remember(curve, self._graduate(curve) if sold_out else None)
        return {
            "signature": str(tx.signatures[0]),
            "buyer": str(buyer.pubkey()),
            "bucket": kind,
            "lamports": paid,
            "tokens": tokens,
            "protocolFee": protocol,
            "creatorFee": creator,
            "creatorFeeAccount": str(fee_account),
            "graduated": sold_out or kind == "raydium",
        }

    def _graduate(self, curve: Curve) -> Landed | None:
        """The crank's graduation of a sold-out curve, landed; None when it did not land
        (the next buy sends it again)."""
        landed = graduation.graduate(self.chain, curve)
        return landed if landed is not None and landed.err is None else None

    def graduated(self, curve: Curve) -> bool:
        """Whether the curve has graduated: its Raydium bucket holds a pool (a launch with
        no Raydium bucket: once sold out)."""
        if curve.pool is None:
            return self.remaining(curve) == 0
        return graduation.pool_of(self.chain, curve) is not None

    def _remember(self, curve: Curve, graduated: Landed | None) -> None:
        now = iso_utc(datetime.now(UTC))
        activity = self.store.get("curve", curve.genesis) or {"graduatedAt": None}
        activity["lastActivityAt"] = now
        if graduated is not None and activity["graduatedAt"] is None:
            activity["graduatedAt"] = iso_utc(datetime.fromtimestamp(graduated.block_time, UTC))
        self.store.put("curve", curve.genesis, activity)

    # ── claims ──────────────────────────────────────────────────────────────

    def claimable(self, wallet: str, network: str) -> list[tuple[str, Curve, int]]:
        """What the wallet can claim on `network`: each bucket (a curve's, "bondingCurve",
        or its pool's, "raydium") whose creator fee wallet it is, with fees accrued and
        not claimed, with how much."""
        found = []
        for created in self.store.all("create"):
            if created["network"] != network or created["launch"].get("type") != "bondingCurve":
                continue
            curve = self.curve(created["genesis"])
            if curve is None or str(curve.fee_wallet) != wallet:
                continue
            bucket = read(self.chain, curve.bucket.address, "BondingCurveBucketV2")
            if bucket is not None:
                found.append(("bondingCurve", curve, _due(bucket)))
            pool = graduation.pool_of(self.chain, curve)
            fee = pool["extensions"].get("creatorFee") if pool else None
            if pool is not None and fee and str(fee["wallet"]) == wallet:
                found.append(("raydium", curve, _due(pool)))
        return [(kind, curve, due) for kind, curve, due in found if due > 0]

    def claim(self, body: ClaimRewardsRequest) -> RewardsClaim | None:
        """One transaction per bucket with something to claim; None when nothing: a
        curve's `claimBondingCurveCreatorFeeV2`, a pool's `claimRaydiumCreatorFeeV2` (the
        fees into the wallet's wrapped SOL account, made if missing, the payer paying)."""
        due = self.claimable(str(body.wallet), str(body.network))
        if not due:
            return None
        payer = body.payer or body.wallet
        groups = [[self._claim(kind, curve, body.wallet, payer)] for kind, curve, _ in due]
        blockhash, last_valid = self.chain.blockhash_for_new()
        messages = self.chain.build(payer, groups, blockhash)
        return RewardsClaim(
            transactions=[bytes(partly_signed(m, [])) for m in messages],
            blockhash=BlockhashInfo(blockhash=blockhash, last_valid_block_height=last_valid),
        )

    def _claim(self, kind: str, curve: Curve, wallet: Pubkey, payer: Pubkey) -> Instruction:
        bucket = curve.pool if kind == "raydium" else curve.bucket
        assert bucket is not None
        accounts = {
            "genesisAccount": curve.launch.genesis,
            "bucket": bucket.address,
            "baseMint": curve.launch.mint,
            "quoteMint": curve.launch.quote_mint,
            "creatorFeeWallet": wallet,
        }
        name = "claimRaydiumCreatorFeeV2" if kind == "raydium" else "claimBondingCurveCreatorFeeV2"
        return build_instruction(name, {}, accounts, payer=payer)


def _due(bucket: dict[str, Any]) -> int:
    return int(bucket["creatorFeeAccrued"] - bucket["creatorFeeClaimed"])
