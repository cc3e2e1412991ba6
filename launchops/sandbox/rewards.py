"""Swaps on the sandbox's bonding curves, the creator fees they accrue, and claims of them.

A swap (`POST /_sandbox/buy`, the sniper) is a throwaway buyer's `swapBondingCurveV2`,
the sandbox funding it, played as every Genesis instruction is (`genesis_swaps`): its SOL
into the curve's quote account less the protocol fee (to the fee wallet's), the tokens
out of the genesis account's escrow; the curve's bucket accrues the creator fee. A curve
that sold every token has graduated; a buy after that is a Raydium pool trade: its SOL
goes to the pool, its creator fee to the creator's Raydium fee account.

Claims are still the sandbox's own: a creator fee account per bucket, a system account
the sandbox holds the key of (derived from the genesis account and bucket kind), credited
with each swap's creator fee, kept rent-exempt. A claim builds one transaction per fee
account with something above rent: a transfer to the creator's wallet, signed by the
fee account, paid for (and signed) by the payer. The account is drained only when that
transaction lands; a second claim of the same fees fails on chain, never pays twice.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
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
from launchops.sandbox.chain import Chain
from launchops.sandbox.genesis_create import PlannedBucket
from launchops.sandbox.genesis_tx import first_buy_instructions
from launchops.sandbox.genesis_verify import read
from launchops.sandbox.launches import launch_plan, partly_signed
from launchops.sandbox.store import SandboxStore

PROTOCOL_FEE_BPS = 50
CREATOR_FEE_BPS = 60
BUYER_SPARE = 10_000_000  # lamports a buyer gets beyond its swap: fees and rent
MAX_BUY_LAMPORTS = 10_000 * 10**9


def _seeded(*parts: str) -> Keypair:
    return Keypair.from_seed(
        hashlib.sha256(":".join(("launchops-sandbox", *parts)).encode()).digest()
    )


PROTOCOL_FEE_ACCOUNT = _seeded("protocol-fee").pubkey()


def fee_keypair(genesis: str, kind: str) -> Keypair:
    """The creator fee account of one bucket (`bondingCurve` or `raydium`) of a launch."""
    return _seeded("creator-fee", genesis, kind)


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
        fee = allocation.bonding_curve_v2.creator_fee
        return Curve(
            genesis=genesis,
            network=created["network"],
            config=config,
            bucket=bucket,
            vault=p.token_account_address(bucket.address, p.NATIVE_MINT, p.TOKEN_PROGRAM),
            launch=launch,
            fee_wallet=fee.wallet if fee.enabled else None,
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
        Raydium pool once the curve sold out; what it did."""
        curve = self.curve(genesis)
        if curve is None:
            raise SwapRefused("No bonding curve launch with this genesis account")
        remaining = self.remaining(curve)
        if remaining is None:
            raise SwapRefused("The launch's transactions have not landed")
        protocol = paid * PROTOCOL_FEE_BPS // 10_000
        creator = paid * CREATOR_FEE_BPS // 10_000 if curve.fee_wallet else 0
        kind = "raydium" if remaining == 0 else "bondingCurve"
        buyer = Keypair()
        self.chain.airdrop(buyer.pubkey(), paid + creator + BUYER_SPARE)
        if kind == "raydium":
            pool = _seeded("raydium-pool", curve.genesis).pubkey()
            ixs = self._credit(buyer.pubkey(), pool, paid - protocol - creator)
            ixs += self._credit(buyer.pubkey(), PROTOCOL_FEE_ACCOUNT, protocol)
        else:
            ixs = first_buy_instructions(curve.launch, curve.bucket, buyer.pubkey(), paid, 0)
        fee_account = fee_keypair(genesis, kind).pubkey()
        if kind == "raydium":  # the curve's accrue in its bucket; the pool's, here
            ixs += self._credit(buyer.pubkey(), fee_account, creator)
        ixs.append(p.memo(f"sandbox swap on {genesis}", buyer.pubkey()))
        blockhash, _ = self.chain.latest_blockhash()
        tx = VersionedTransaction(
            MessageV0.try_compile(buyer.pubkey(), ixs, [], blockhash), [buyer]
        )
        landed = self.chain.land_now(tx)
        if landed is None or landed.err is not None:
            raise SwapRefused(f"the swap failed on chain: {landed.err if landed else 'expired'}")
        tokens = 0
        if kind == "bondingCurve":
            account = p.token_account_address(buyer.pubkey(), curve.launch.mint, p.TOKEN_PROGRAM)
            tokens = p.read_token_account(bytes(self.chain.account(account).data)).amount
        graduated = kind == "bondingCurve" and self.remaining(curve) == 0
        self._remember(curve, kind, graduated)
        return {
            "signature": str(tx.signatures[0]),
            "buyer": str(buyer.pubkey()),
            "bucket": kind,
            "lamports": paid,
            "tokens": tokens,
            "protocolFee": protocol,
            "creatorFee": creator,
            "creatorFeeAccount": str(fee_account),
            "graduated": graduated or kind == "raydium",
        }

    def _credit(self, payer: Pubkey, to: Pubkey, amount: int) -> list[Instruction]:
        """A transfer of `amount`, plus the rent a new system account needs."""
        if amount <= 0:
            return []
        if self.chain.account(to) is None:
            amount += self.chain.rent_exempt(0)
        return [transfer(TransferParams(from_pubkey=payer, to_pubkey=to, lamports=amount))]

    def _remember(self, curve: Curve, kind: str, graduated: bool) -> None:
        now = iso_utc(datetime.now(UTC))
        activity = self.store.get("curve", curve.genesis) or {"graduatedAt": None}
        activity["lastActivityAt"] = now
        if graduated and activity["graduatedAt"] is None:
            activity["graduatedAt"] = now
        self.store.put("curve", curve.genesis, activity)
        if curve.fee_wallet is not None and kind == "raydium":
            account = str(fee_keypair(curve.genesis, kind).pubkey())
            self.store.put(
                "fee-account",
                account,
                {
                    "account": account,
                    "genesis": curve.genesis,
                    "kind": kind,
                    "wallet": str(curve.fee_wallet),
                    "network": curve.network,
                },
            )

    # ── claims ──────────────────────────────────────────────────────────────

    def claimable(self, wallet: str, network: str) -> list[tuple[dict[str, Any], int]]:
        """What the wallet can claim on `network`: each bonding curve whose creator fee
        wallet it is, with fees accrued and not claimed (in its bucket), and each Raydium
        pool fee account with lamports above rent; with how much."""
        found = [(entry, due) for entry, due in self._curves_of(wallet, network) if due > 0]
        rent = self.chain.rent_exempt(0)
        for entry in self.store.all("fee-account"):
            if entry["wallet"] != wallet or entry["network"] != network:
                continue
            account = self.chain.account(Pubkey.from_string(entry["account"]))
            amount = account.lamports - rent if account else 0
            if amount > 0:
                found.append((entry, amount))
        return found

    def _curves_of(self, wallet: str, network: str) -> list[tuple[dict[str, Any], int]]:
        found = []
        for created in self.store.all("create"):
            if created["network"] != network or created["launch"].get("type") != "bondingCurve":
                continue
            curve = self.curve(created["genesis"])
            if curve is None or str(curve.fee_wallet) != wallet:
                continue
            bucket = read(self.chain, curve.bucket.address, "BondingCurveBucketV2")
            if bucket is not None:
                due = bucket["creatorFeeAccrued"] - bucket["creatorFeeClaimed"]
                entry = {"genesis": curve.genesis, "kind": "bondingCurve", "wallet": wallet}
                found.append(({**entry, "curve": curve}, due))
        return found

    def claim(self, body: ClaimRewardsRequest) -> RewardsClaim | None:
        """One transaction per bucket with something to claim; None when nothing: a
        curve's `claimBondingCurveCreatorFeeV2` (its fees into the wallet's wrapped SOL
        account, made if missing, the payer paying), a pool's a transfer from its fee
        account, signed by it."""
        due = self.claimable(str(body.wallet), str(body.network))
        if not due:
            return None
        payer = body.payer or body.wallet
        groups, keys = [], []
        for entry, amount in due:
            if entry["kind"] == "bondingCurve":
                groups.append([self._claim_curve(entry["curve"], body.wallet, payer)])
                keys.append([])
                continue
            source = Pubkey.from_string(entry["account"])
            move = TransferParams(from_pubkey=source, to_pubkey=body.wallet, lamports=amount)
            groups.append([transfer(move)])
            keys.append([fee_keypair(entry["genesis"], entry["kind"])])
        blockhash, last_valid = self.chain.blockhash_for_new()
        messages = self.chain.build(payer, groups, blockhash)
        return RewardsClaim(
            transactions=[bytes(partly_signed(m, k)) for m, k in zip(messages, keys, strict=True)],
            blockhash=BlockhashInfo(blockhash=blockhash, last_valid_block_height=last_valid),
        )

    def _claim_curve(self, curve: Curve, wallet: Pubkey, payer: Pubkey) -> Instruction:
        accounts = {
            "genesisAccount": curve.launch.genesis,
            "bucket": curve.bucket.address,
            "baseMint": curve.launch.mint,
            "quoteMint": curve.launch.quote_mint,
            "creatorFeeWallet": wallet,
        }
        return build_instruction("claimBondingCurveCreatorFeeV2", {}, accounts, payer=payer)
