"""The Genesis V2 accounts, as `@metaplex-foundation/genesis` 0.35.0 lays them out
(`dist/src/generated/accounts/`): the genesis account, each bucket and each deposit. An
account's first byte is its `Key`; `decode_account` reads any of them by it.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import launchops.genesis.types as t
from launchops.genesis.codec import (
    BOOL,
    I64,
    PUBKEY,
    U8,
    U16,
    U32,
    U64,
    Array,
    Enum,
    Field,
    FixedOption,
    LayoutError,
    Struct,
    none,
    pad,
)


class Key(IntEnum):
    """An account's first byte (`types/key`)."""

    Uninitialized = 0
    GenesisAccount = 1
    LaunchPoolBucket = 2
    LaunchPoolDeposit = 3
    StreamflowBucket = 4
    UnlockedBucket = 5
    MeteoraBucket = 6
    PumpBucket = 7
    DistributionBucket = 8
    PresaleBucket = 9
    PresaleDeposit = 10
    VaultBucket = 11
    VaultDeposit = 12
    BondingCurveBucket = 13
    AuctionBucket = 14
    AuctionBid = 15
    AuctionTree = 16
    RaydiumCpmmBucket = 17
    GenesisAccountV2 = 18
    PresaleBucketV2 = 19
    PresaleDepositV2 = 20
    UnlockedBucketV2 = 21
    RaydiumCpmmBucketV2 = 22
    VaultBucketV2 = 23
    VaultDepositV2 = 24
    BondingCurveBucketV2 = 25
    LaunchPoolBucketV2 = 26
    LaunchPoolDepositV2 = 27
    StreamflowBucketV2 = 28


def _account(key: Key, *fields: Field) -> Struct:
    return Struct(key.name, [Field("key", Enum(Key), key), *fields])


def _u64s(names: str) -> list[Field]:
    return [Field(name, U64, 0) for name in names.split()]


FEE_TYPE = Enum(t.FeeDiscriminants)
BASE = Field("bucket", t.BUCKET_BASE)
BEHAVIORS = Field("endBehaviors", Array(t.BEHAVIOR), [])


def _conditions(names: str) -> list[Field]:
    return [Field(name, t.CONDITION) for name in names.split()]


def _tail(reserved: int, extensions: Struct) -> list[Field]:
    """Reserved bytes, then the bucket's extensions."""
    return [pad("reserved", reserved), Field("extensions", extensions)]


GENESIS_ACCOUNT_V2 = _account(
    Key.GenesisAccountV2,
    Field("bump", U8),
    Field("index", U16, 0),
    Field("finalized", BOOL, False),
    pad("padding", 3),
    Field("authority", PUBKEY),
    Field("baseMint", PUBKEY),
    Field("quoteMint", PUBKEY),
    Field("totalSupplyBaseToken", U64),
    *_u64s("totalAllocatedSupplyBaseToken totalProceedsQuoteToken"),
    Field("fundingMode", U8, 0),
    Field("launchType", U8, 0),
    pad("endPadding", 2),
    Field("bucketCount", U32, 0),
)
LAUNCH_POOL_BUCKET_V2 = _account(
    Key.LaunchPoolBucketV2,
    *(Field(name, FEE_TYPE, 0) for name in ("depositFeeType", "withdrawFeeType", "claimFeeType")),
    pad("padding", 4),
    *_u64s("depositFee depositId depositCount quoteTokenDepositTotal weightedQuoteTokenTotal"),
    *_u64s("withdrawFee claimFee claimCount refundCount"),
    BASE,
    *_conditions("depositStartCondition depositEndCondition"),
    *_conditions("claimStartCondition claimEndCondition"),
    *_tail(128, t.LAUNCH_POOL_V2_EXTENSIONS),
    pad("padding2", 4),
    BEHAVIORS,
)
LAUNCH_POOL_DEPOSIT_V2 = _account(
    Key.LaunchPoolDepositV2,
    Field("bump", U8),
    Field("claimed", BOOL, False),
    Field("refunded", BOOL, False),
    Field("index", U32, 0),
    Field("amountClaimed", U64, 0),
    Field("depositor", PUBKEY),
    Field("bucket", PUBKEY),
    Field("timestamp", I64),
    Field("amountQuoteToken", U64),
    Field("weightedQuoteToken", U64),
)
PRESALE_BUCKET_V2 = _account(
    Key.PresaleBucketV2,
    *(Field(name, FEE_TYPE, 0) for name in ("depositFeeType", "claimFeeType")),
    pad("padding", 5),
    *_u64s("depositFee depositCount quoteTokenDepositTotal claimFee claimCount"),
    BASE,
    Field("allocationQuoteTokenCap", U64),
    *_conditions("depositStartCondition depositEndCondition"),
    *_conditions("claimStartCondition claimEndCondition"),
    *_tail(128, t.PRESALE_V2_EXTENSIONS),
    pad("padding2", 4),
    BEHAVIORS,
)
PRESALE_DEPOSIT_V2 = _account(
    Key.PresaleDepositV2,
    Field("bump", U8),
    Field("claimed", BOOL, False),
    pad("padding", 1),
    Field("index", U32, 0),
    Field("amountClaimed", U64, 0),
    Field("depositor", PUBKEY),
    Field("bucket", PUBKEY),
    Field("timestamp", I64),
    Field("amountQuoteToken", U64),
)
UNLOCKED_BUCKET_V2 = _account(
    Key.UnlockedBucketV2,
    Field("claimed", BOOL, False),
    Field("claimFeeType", FEE_TYPE, 0),
    pad("padding", 5),
    Field("claimFee", U64, 0),
    BASE,
    Field("recipient", PUBKEY),
    *_conditions("claimStartCondition claimEndCondition"),
    *_tail(128, t.UNLOCKED_V2_EXTENSIONS),
)
RAYDIUM_CPMM_BUCKET_V2 = _account(
    Key.RaydiumCpmmBucketV2,
    Field("bucketSignerBump", U8),
    pad("padding", 6),
    BASE,
    Field("bucketSigner", PUBKEY),
    *_u64s("quoteTokenInSigner priceNumerator priceDenominator graduatedBaseTokenAmount"),
    *_u64s("lpTokenBalance"),
    none("lpClaimAuthority", FixedOption(PUBKEY, bytes(32))),
    *_u64s("lpTokensClaimed"),
    *_conditions("startCondition graduateCondition"),
    Field("poolState", PUBKEY),
    *_u64s("creatorFeeAccrued creatorFeeClaimed"),
    *_tail(80, t.RAYDIUM_CPMM_V2_EXTENSIONS),
    pad("padding2", 4),
    BEHAVIORS,
)
BONDING_CURVE_BUCKET_V2 = _account(
    Key.BondingCurveBucketV2,
    *(Field(name, FEE_TYPE, 0) for name in ("depositFeeType", "withdrawFeeType")),
    Field("bondingCurveType", Enum(t.BondingCurveType), t.BondingCurveType.ConstantProduct),
    pad("padding", 4),
    *_u64s("depositFee withdrawFee quoteTokenDepositTotal"),
    BASE,
    *_conditions("swapStartCondition swapEndCondition"),
    *_u64s("creatorFeeAccrued creatorFeeClaimed"),
    *_tail(112, t.BONDING_CURVE_V2_EXTENSIONS),
    pad("padding2", 4),
    BEHAVIORS,
    Field(
        "constantProductParams",
        Struct("ConstantProductParams", [Field("virtualSol", U64), Field("virtualTokens", U64)]),
    ),
)
STREAMFLOW_BUCKET_V2 = _account(
    Key.StreamflowBucketV2,
    Field("locked", BOOL, False),
    pad("padding", 6),
    BASE,
    Field("recipient", PUBKEY),
    Field("config", t.STREAMFLOW_CONFIG),
    *_conditions("lockStartCondition lockEndCondition"),
    *_tail(128, t.STREAMFLOW_V2_EXTENSIONS),
)

ACCOUNTS: dict[Key, Struct] = {
    Key.GenesisAccountV2: GENESIS_ACCOUNT_V2,
    Key.LaunchPoolBucketV2: LAUNCH_POOL_BUCKET_V2,
    Key.LaunchPoolDepositV2: LAUNCH_POOL_DEPOSIT_V2,
    Key.PresaleBucketV2: PRESALE_BUCKET_V2,
    Key.PresaleDepositV2: PRESALE_DEPOSIT_V2,
    Key.UnlockedBucketV2: UNLOCKED_BUCKET_V2,
    Key.RaydiumCpmmBucketV2: RAYDIUM_CPMM_BUCKET_V2,
    Key.BondingCurveBucketV2: BONDING_CURVE_BUCKET_V2,
    Key.StreamflowBucketV2: STREAMFLOW_BUCKET_V2,
}
BY_NAME = {key.name: layout for key, layout in ACCOUNTS.items()}


def encode_account(name: str, value: dict[str, Any]) -> bytes:
    """The data of account `name` (e.g. "GenesisAccountV2") holding `value`; its key
    is the account's own unless `value` says otherwise."""
    try:
        layout = BY_NAME[name]
    except KeyError:
        raise LayoutError(f"no Genesis account {name!r} here") from None
    return layout.encode(value)


def decode_account(data: bytes, *, exact: bool = False) -> tuple[str, dict[str, Any]]:
    """The account `data` holds, by its key: (name, value). As the JS client reads it,
    bytes after the layout are ignored unless `exact`."""
    if not data:
        raise LayoutError("an account with no data")
    try:
        layout = ACCOUNTS[Key(data[0])]
    except (KeyError, ValueError):
        raise LayoutError(f"no Genesis V2 account has key {data[0]}") from None
    return layout.name, layout.decode(data, exact=exact)


def decode_account_as(name: str, data: bytes, *, exact: bool = False) -> dict[str, Any]:
    """The account `data` holds, which must be a `name`."""
    found, value = decode_account(data, exact=exact)
    if found != name:
        raise LayoutError(f"a {found}, not a {name}")
    return value
