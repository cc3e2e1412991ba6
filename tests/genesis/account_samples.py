"""Accounts for the Genesis layouts' tests: every V2 account and the Token Metadata
account, with values that are not the defaults (options that hold something, end
behaviors, every bucket's extensions) and some with the defaults."""

from __future__ import annotations

from typing import Any

from launchops.genesis.codec import variant
from launchops.genesis.metadata import TokenStandard, UseMethod, puff_out
from launchops.genesis.types import FeeDiscriminants
from tests.genesis.samples import (
    ALLOWLIST_INIT,
    BEHAVIORS,
    BIG,
    BUCKET,
    CONDITIONS,
    DEPOSIT_CLAIM,
    GENESIS,
    IDENTITY,
    MINT,
    NOW,
    OTHER,
    RAYDIUM_OPTIONS,
    STREAMFLOW,
    key,
    lp_options,
    presale_options,
)


def _base(index: int) -> dict[str, Any]:
    return {
        "bump": 254,
        "bucketIndex": index,
        "feeType": FeeDiscriminants.Flat,
        "genesis": GENESIS,
        "baseTokenAllocation": 10**15,
        "baseTokenBalance": 10**14,
        "quoteTokenBalance": BIG,
        "fee": 200,
        "baseMint": MINT,
        "quoteMint": None,
        "reserved": bytes(range(64)),
    }


ACCOUNTS: list[tuple[str, dict[str, Any]]] = [
    (
        "GenesisAccountV2",
        {
            "bump": 253,
            "index": 1,
            "finalized": True,
            "authority": IDENTITY,
            "baseMint": MINT,
            "quoteMint": OTHER,
            "totalSupplyBaseToken": 10**15,
            "totalAllocatedSupplyBaseToken": 10**15,
            "totalProceedsQuoteToken": BIG,
            "fundingMode": 1,
            "launchType": 2,
            "bucketCount": 4,
        },
    ),
    (
        "LaunchPoolBucketV2",
        {
            "depositFeeType": FeeDiscriminants.Flat,
            "depositFee": 1,
            "depositId": 2,
            "depositCount": 3,
            "quoteTokenDepositTotal": BIG,
            "weightedQuoteTokenTotal": 5,
            "claimCount": 6,
            "bucket": _base(0),
            **DEPOSIT_CLAIM,
            "extensions": {
                **lp_options(),
                "allowlist": {**ALLOWLIST_INIT, "quoteCapReached": True, "quoteDepositTotal": 4},
            },
            "endBehaviors": BEHAVIORS,
        },
    ),
    ("LaunchPoolBucketV2", {"bucket": _base(1), **DEPOSIT_CLAIM, "extensions": {}}),
    (
        "LaunchPoolDepositV2",
        {
            "bump": 251,
            "claimed": True,
            "index": 9,
            "depositor": OTHER,
            "bucket": BUCKET,
            "timestamp": -1,
            "amountQuoteToken": BIG,
            "weightedQuoteToken": 3,
        },
    ),
    (
        "PresaleBucketV2",
        {
            "claimFeeType": FeeDiscriminants.Flat,
            "depositCount": 5,
            "bucket": _base(2),
            "allocationQuoteTokenCap": 10**12,
            **DEPOSIT_CLAIM,
            "extensions": {**presale_options(), "allowlist": None},
            "endBehaviors": BEHAVIORS[3:],
        },
    ),
    (
        "PresaleDepositV2",
        {
            "bump": 250,
            "index": 2,
            "amountClaimed": 8,
            "depositor": OTHER,
            "bucket": BUCKET,
            "timestamp": NOW,
            "amountQuoteToken": 9,
        },
    ),
    (
        "UnlockedBucketV2",
        {
            "claimed": True,
            "bucket": _base(3),
            "recipient": OTHER,
            "claimStartCondition": CONDITIONS[1],
            "claimEndCondition": CONDITIONS[2],
            "extensions": {"backendSigner": IDENTITY},
        },
    ),
    (
        "RaydiumCpmmBucketV2",
        {
            "bucketSignerBump": 255,
            "bucket": _base(0),
            "bucketSigner": key(11),
            "quoteTokenInSigner": 1,
            "priceNumerator": 2,
            "priceDenominator": 3,
            "graduatedBaseTokenAmount": 4,
            "lpTokenBalance": 5,
            "lpClaimAuthority": OTHER,
            "lpTokensClaimed": 6,
            "startCondition": CONDITIONS[3],
            "graduateCondition": CONDITIONS[4],
            "poolState": key(12),
            "creatorFeeAccrued": 7,
            "extensions": {
                **RAYDIUM_OPTIONS,
                "creatorFee": {"wallet": IDENTITY, "feeType": FeeDiscriminants.Flat, "fee": 9},
            },
            "endBehaviors": BEHAVIORS[:1],
        },
    ),
    (
        "BondingCurveBucketV2",
        {
            "depositFee": 100,
            "bucket": _base(0),
            "swapStartCondition": CONDITIONS[3],
            "swapEndCondition": CONDITIONS[1],
            "creatorFeeAccrued": BIG,
            "extensions": {
                "backendSigner": {"signer": OTHER},
                "firstBuy": {"buyer": IDENTITY, "amount": 10**9},
                "firstBuyDone": True,
                "creatorFee": {"wallet": IDENTITY},
            },
            "endBehaviors": BEHAVIORS[1:3],
            "constantProductParams": {"virtualSol": 1, "virtualTokens": 2},
        },
    ),
    (
        "StreamflowBucketV2",
        {
            "locked": True,
            "bucket": _base(7),
            "recipient": OTHER,
            "config": STREAMFLOW,
            "lockStartCondition": CONDITIONS[0],
            "lockEndCondition": CONDITIONS[5],
            "extensions": {"backendSigner": IDENTITY, "streamflowAuthority": OTHER},
        },
    ),
]
METADATA = [
    puff_out(
        {
            "updateAuthority": GENESIS,
            "mint": MINT,
            "name": "Curve Token",
            "symbol": "CURVE",
            "uri": "https://gateway.irys.xyz/curve",
            "creators": [{"address": IDENTITY, "verified": True, "share": 100}],
            "editionNonce": 254,
            "tokenStandard": TokenStandard.Fungible,
        }
    ),
    {
        "updateAuthority": OTHER,
        "mint": MINT,
        "name": "N",
        "symbol": "",
        "uri": "u",
        "sellerFeeBasisPoints": 500,
        "creators": [],
        "primarySaleHappened": True,
        "isMutable": False,
        "editionNonce": 0,
        "tokenStandard": TokenStandard.ProgrammableNonFungible,
        "collection": {"verified": True, "key": BUCKET},
        "uses": {"useMethod": UseMethod.Multiple, "remaining": 1, "total": BIG},
        "collectionDetails": variant("V1", size=3),
        "programmableConfig": variant("V1", ruleSet=OTHER),
    },
]
