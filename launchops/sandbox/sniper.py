"""The `sniper` fault: a bot that buys every new bonding curve in the slot after it opens.

A curve opens once its launch is final (the transaction with `finalizeV2` landed); the
sniper (a buyer the sandbox funds, through `Rewards.buy`) buys from it at the next slot.
A creator's first buy that lands after the sniper's pays the price the sniper left (the
swap prices the curve as it is when it lands). A first buy in the same slot as the
finalize, ahead of the sniper (a bundle), gets the opening price.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api.allocations import BondingCurveAllocation
from launchops.api.models import LaunchConfig
from launchops.sandbox.chain import Chain, Landed
from launchops.sandbox.genesis_verify import read
from launchops.sandbox.rewards import Rewards, SwapRefused

LAMPORTS_PER_SOL = 10**9


class Sniper:
    def __init__(self, chain: Chain, rewards: Rewards) -> None:
        self.chain = chain
        self.rewards = rewards
        self.curves: set[Pubkey] = set()  # genesis accounts of curves not yet open
        self.due: dict[int, list[Pubkey]] = defaultdict(list)
        self.sniped: dict[str, dict[str, Any]] = {}  # what each snipe did, by genesis
        chain.landing_hooks.append(self.landed)
        chain.producers.append(self.produce)

    def watch(self, config: LaunchConfig, genesis: Pubkey, mint: Pubkey) -> None:
        """A launch just created: watch its curve, if it has one."""
        if any(isinstance(a, BondingCurveAllocation) for a in config.allocations):
            self.curves.add(genesis)

    def landed(self, tx: VersionedTransaction, landed: Landed) -> None:
        if landed.err is not None or not self.curves:
            return
        for key in self.chain.keys_of(tx):
            if key not in self.curves:
                continue
            account = read(self.chain, key, "GenesisAccountV2")
            if account is not None and account["finalized"]:
                self.curves.discard(key)
                if self.chain.faults.sniper > 0:
                    self.due[landed.slot + 1].append(key)

    def produce(self, slot: int) -> None:
        for genesis in self.due.pop(slot, []):
            paid = round(self.chain.faults.sniper * LAMPORTS_PER_SOL)
            try:
                made = self.rewards.buy(str(genesis), paid)
            except SwapRefused:
                continue
            self.sniped[str(genesis)] = {"slot": slot, **made}
