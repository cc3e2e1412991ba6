"""Whether someone else bought from a launch's bonding curve between its create and the
creator's first buy, read from the chain.

A curve's SOL goes into its quote account (wrapped SOL held by the curve bucket's PDA):
every buy touches it. Asked for that account's signatures (newest first), any that is
not one of the launch's and came before the first buy's is a buy that got in ahead of the
creator, at the opening price the first buy was meant to get.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from solders.pubkey import Pubkey
from solders.signature import Signature

from launchops.api.allocations import BondingCurveAllocation
from launchops.api.models import LaunchConfig
from launchops.chain.rpc import ChainRpc
from launchops.genesis.pdas import NATIVE_MINT, associated_token_address, find_bucket_v2

LOOKED_AT = 100  # signatures asked for: more than any launch's own and a few bots'


def curve_vault(config: LaunchConfig, genesis: Pubkey) -> Pubkey | None:
    """The quote account of the launch's bonding curve, when it has a first buy."""
    curve = next((a for a in config.allocations if isinstance(a, BondingCurveAllocation)), None)
    if curve is None or not curve.bonding_curve_v2.first_buy.enabled:
        return None
    bucket = find_bucket_v2("BondingCurveBucketV2", genesis, 0)[0]
    return associated_token_address(bucket, NATIVE_MINT)


async def buys_before(
    rpc: ChainRpc, vault: Pubkey, ours: Sequence[Signature], first_buy: Signature
) -> list[str]:
    """Signatures of others on the curve's quote account older than the first buy's."""
    params: list[Any] = [str(vault), {"limit": LOOKED_AT, "commitment": "confirmed"}]
    found, _ = await rpc.call("getSignaturesForAddress", params, _signatures)
    mine = {str(s) for s in ours}
    if str(first_buy) not in found:
        return []
    older = found[found.index(str(first_buy)) + 1 :]
    return [signature for signature in older if signature not in mine]


def _signatures(value: Any) -> list[str]:
    return [str(entry["signature"]) for entry in value]
