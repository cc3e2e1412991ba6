"""The `sniper` fault: a bot that buys every new bonding curve in the slot after it appears.

A curve exists once the transaction making its bucket's token account lands; the sniper
(a buyer the sandbox funds, through `Rewards.buy`) buys from it at the next slot. A
creator's first buy that lands after the sniper's pays the price the sniper left: the
tokens it was built to receive at the opening price are cut to what the curve gives once
the sniper's SOL is in it and its tokens are out (the difference goes back to the curve's
bucket). A first buy in the same slot as the curve, ahead of the sniper (a bundle), keeps
the opening price.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api.allocations import BondingCurveAllocation
from launchops.api.amounts import base_units
from launchops.api.models import LaunchConfig
from launchops.sandbox import bonding
from launchops.sandbox.chain import Chain, Landed
from launchops.sandbox.launches import plan_buckets
from launchops.sandbox.rewards import Rewards, SwapRefused

LAMPORTS_PER_SOL = 10**9


@dataclass
class _Curve:
    genesis: str
    config: LaunchConfig
    buy: bonding.FirstBuy | None
    bucket: Pubkey  # the curve bucket's token account
    sold: int = 0  # tokens the sniper took
    paid: int = 0  # lamports the sniper put in, fees left out


class Sniper:
    def __init__(self, chain: Chain, rewards: Rewards) -> None:
        self.chain = chain
        self.rewards = rewards
        self.curves: dict[Pubkey, _Curve] = {}  # by the curve bucket's token account
        self.first_buys: dict[Pubkey, _Curve] = {}  # by the first buyer's token account
        self.due: dict[int, list[_Curve]] = defaultdict(list)
        self.sniped: dict[str, dict[str, Any]] = {}  # what each snipe did, by genesis
        chain.landing_hooks.append(self.landed)
        chain.producers.append(self.produce)

    def watch(self, config: LaunchConfig, genesis: Pubkey, mint: Pubkey) -> None:
        """A launch just created: watch its curve, if it has one."""
        if not any(isinstance(a, BondingCurveAllocation) for a in config.allocations):
            return
        bucket = next(b for b in plan_buckets(config, genesis, mint) if b.kind == "bondingCurveV2")
        buy = bonding.first_buy(config, genesis, mint)
        curve = _Curve(str(genesis), config, buy, bucket.account)
        self.curves[bucket.account] = curve
        if curve.buy is not None:
            self.first_buys[curve.buy.account] = curve

    def landed(self, tx: VersionedTransaction, landed: Landed) -> None:
        if landed.err is not None:
            return
        for key in self.chain.keys_of(tx):
            curve = self.curves.pop(key, None)
            if curve is not None and self.chain.faults.sniper > 0:
                self.due[landed.slot + 1].append(curve)
            curve = self.first_buys.pop(key, None)
            if curve is not None and curve.sold:
                self._reprice(curve)

    def produce(self, slot: int) -> None:
        for curve in self.due.pop(slot, []):
            paid = round(self.chain.faults.sniper * LAMPORTS_PER_SOL)
            try:
                made = self.rewards.buy(curve.genesis, paid)
            except SwapRefused:
                continue
            curve.sold += int(made["tokens"])
            curve.paid += paid - int(made["protocolFee"]) - int(made["creatorFee"])
            self.sniped[curve.genesis] = {"slot": slot, **made}

    def _reprice(self, curve: _Curve) -> None:
        """The first buy landed after the sniper's: it gets the price the sniper left."""
        buy = curve.buy
        assert buy is not None
        settings = next(
            a for a in curve.config.allocations if isinstance(a, BondingCurveAllocation)
        ).bonding_curve_v2
        virtual_base = base_units(settings.virtual_base_tokens, curve.config.decimals)
        virtual_quote = base_units(settings.virtual_quote_tokens, bonding.SOL_DECIMALS)
        fair = (
            (virtual_base - curve.sold)
            * buy.lamports
            // (virtual_quote + curve.paid + buy.lamports)
        )
        cut = buy.tokens - max(0, fair)
        if cut > 0:
            self.rewards.move_tokens(buy.account, curve.bucket, cut)
