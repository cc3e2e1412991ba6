"""The Genesis program's own types, as `@metaplex-foundation/genesis` 0.35.0 lays them
out (`dist/src/generated/types/`): conditions, end behaviors, schedules, the buckets'
limits and signers, the streamflow config, each bucket's extensions (the instructions'
one-at-a-time `...V2Extension` and the accounts' all-in-one `...V2Extensions`), and the
enums. Each is a `Codec` (see codec.py); the sentinels are those of the generated code,
the bytes a fixed-size option writes for None.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from solders.pubkey import Pubkey

from launchops.genesis.codec import (
    BOOL,
    I64,
    PUBKEY,
    U8,
    U16,
    U64,
    Array,
    Codec,
    DataEnum,
    Enum,
    Field,
    FixedBytes,
    FixedOption,
    Struct,
    none,
    pad,
    variant,
    zeros,
)


class BucketTimes(IntEnum):
    """Which of a bucket's times a relative condition follows."""

    DepositStart = 0
    DepositEnd = 1
    ClaimStart = 2
    ClaimEnd = 3
    SwapStart = 4
    SwapEnd = 5
    LockStart = 6
    LockEnd = 7
    GraduateStart = 8
    Graduate = 9


class ConditionTypes(IntEnum):
    """A condition's variant index (the order of `Condition`'s variants)."""

    Uninitialized = 0
    TimeAbsolute = 1
    TimeRelative = 2
    Triggered = 3
    Never = 4
    Always = 5


class FeeDiscriminants(IntEnum):
    """How a bucket's fee is counted (`types/feeDiscriminants`)."""

    BasisPoints = 0
    Flat = 1


class SwapDirection(IntEnum):
    """A bonding curve swap's direction: a buy (quote in) or a sell."""

    Buy = 0
    Sell = 1


class BondingCurveType(IntEnum):
    """The price curve of a bonding curve bucket."""

    ConstantProduct = 0


class LaunchType(IntEnum):
    """`GenesisAccountV2.launchType` (a u8 there), as `types/launchType` names it."""

    Uninitialized = 0
    Project = 1
    Meme = 2
    LaunchPoolV1 = 3
    BondingCurveV1 = 4


# The sentinels: what a fixed-size option holds for None.
I64_NONE = b"\xff" * 7 + b"\x7f"  # i64::MAX
U64_NONE = b"\xff" * 8
CONDITION_NONE = b"\xff" + bytes(55) + I64_NONE  # no such variant as 255
LINEAR_BPS_SCHEDULE_NONE = bytes(24) + CONDITION_NONE + bytes(72)
CLAIM_SCHEDULE_NONE = CONDITION_NONE + bytes(16) + CONDITION_NONE + bytes(128)
STEPPED_DEPOSIT_LIMIT_NONE = I64_NONE * 10


def _triggered() -> Field:
    return none("triggeredTimestamp", FixedOption(I64, I64_NONE))


CONDITION = DataEnum(
    "Condition",
    [
        ("Uninitialized", [pad("padding", 55), _triggered()]),
        ("TimeAbsolute", [pad("padding", 47), Field("time", I64), _triggered()]),
        (
            "TimeRelative",
            [
                Field("bucketTime", Enum(BucketTimes)),
                pad("padding", 14),
                Field("timeOffset", I64, 0),
                Field("bucket", PUBKEY),
                _triggered(),
            ],
        ),
        ("Triggered", [pad("padding", 55), _triggered()]),
        ("Never", [pad("padding", 55), _triggered()]),
        ("Always", [pad("padding", 55), _triggered()]),
    ],
)


def _moves(name: str) -> tuple[str, list[Field]]:
    fields = [Field("processed", BOOL, False), Field("percentageBps", U16), pad("padding", 4)]
    return name, [*fields, Field("destinationBucket", PUBKEY)]


BEHAVIOR = DataEnum(
    "Behavior",
    [
        ("None", [Field("processed", BOOL, False), pad("padding", 38)]),
        _moves("SendQuoteTokenPercentage"),
        _moves("BaseTokenRollover"),
        (
            "SendStartPrice",
            [
                Field("processed", BOOL, False),
                pad("padding", 6),
                Field("destinationBucket", PUBKEY),
            ],
        ),
        _moves("ReallocateBaseTokensOnFailure"),
    ],
)

LINEAR_BPS_SCHEDULE_V2 = Struct(
    "LinearBpsScheduleV2",
    [
        Field("slopeBps", I64),
        Field("interceptBps", I64),
        Field("maxBps", U64),
        Field("startCondition", CONDITION),
        Field("duration", I64),
        zeros("reserved", 64),
    ],
)
CLAIM_SCHEDULE = Struct(
    "ClaimSchedule",
    [
        Field("startCondition", CONDITION),
        Field("duration", U64),
        Field("period", U64),
        Field("cliffCondition", CONDITION),
        Field("cliffAmountBps", U16),
        pad("reserved", 126),
    ],
)


def _one(name: str, field: str, codec: Codec = U64) -> Struct:
    """A struct of one field."""
    return Struct(name, [Field(field, codec)])


BACKEND_SIGNER = _one("BackendSigner", "signer", PUBKEY)
CREATOR_FEE_INIT_ARGS = _one("CreatorFeeInitArgs", "wallet", PUBKEY)
DEPOSIT_LIMIT = _one("DepositLimit", "limit")
DEPOSIT_COOLDOWN = _one("DepositCooldown", "duration")
PER_COOLDOWN_DEPOSIT_LIMIT = _one("PerCooldownDepositLimit", "limit")
MINIMUM_DEPOSIT_AMOUNT = _one("MinimumDepositAmount", "amount")
MINIMUM_QUOTE_TOKEN_THRESHOLD = _one("MinimumQuoteTokenThreshold", "amount")
STEPPED_DEPOSIT_LIMIT = Struct(
    "SteppedDepositLimit",
    [Field("startTimes", Array(I64, 5)), Field("limit", Array(U64, 5))],
)
ALLOWLIST_INIT_ARGS = Struct(
    "AllowlistInitArgs",
    [
        Field("enabled", BOOL),
        Field("merkleTreeHeight", U8),
        pad("padding", 6),
        Field("merkleRoot", FixedBytes(32)),
        Field("endTime", I64),
        Field("quoteCap", U64),
    ],
)
ALLOWLIST = Struct(
    "Allowlist",
    [
        Field("enabled", BOOL),
        Field("merkleTreeHeight", U8),
        Field("quoteCapReached", BOOL, False),
        pad("padding", 5),
        Field("merkleRoot", FixedBytes(32)),
        Field("endTime", I64),
        Field("quoteCap", U64),
        Field("quoteDepositTotal", U64, 0),
    ],
)
FIRST_BUY = Struct("FirstBuy", [Field("buyer", PUBKEY), Field("amount", U64)])
CREATOR_FEE = Struct(
    "CreatorFee",
    [
        Field("wallet", PUBKEY),
        Field("feeType", Enum(FeeDiscriminants), FeeDiscriminants.BasisPoints),
        pad("padding", 7),
        Field("fee", U64, 0),
    ],
)
_BOOLS = "cancelableBySender cancelableByRecipient automaticWithdrawal transferableBySender"
_BOOLS += " transferableByRecipient canTopup pausable canUpdateRate"
STREAMFLOW_CONFIG = Struct(
    "StreamflowConfig",
    [
        *(Field(n, U64) for n in ("startTime", "period", "amountPerPeriod", "cliff")),
        Field("cliffAmount", U64),
        Field("streamName", FixedBytes(64)),
        Field("withdrawFrequency", U64),
        *(Field(n, BOOL) for n in _BOOLS.split()),
    ],
)
BUCKET_BASE = Struct(
    "BucketBase",
    [
        Field("bump", U8),
        Field("bucketIndex", U8),
        Field("feeType", Enum(FeeDiscriminants), FeeDiscriminants.BasisPoints),
        pad("padding", 5),
        Field("genesis", PUBKEY),
        *(Field(n, U64) for n in ("baseTokenAllocation", "baseTokenBalance")),
        *(Field(n, U64) for n in ("quoteTokenBalance", "fee")),
        none("baseMint", FixedOption(PUBKEY, bytes(32))),
        none("quoteMint", FixedOption(PUBKEY, bytes(32))),
        zeros("reserved", 64),
    ],
)


def fixed(name: str, codec: Struct) -> Field:
    """A fixed-size option field of `codec`, None unless given (sentinels as generated)."""
    return none(name, FixedOption(codec, _SENTINELS.get(codec.name) or bytes(codec.size or 0)))


_SENTINELS = {
    "LinearBpsScheduleV2": LINEAR_BPS_SCHEDULE_NONE,
    "ClaimSchedule": CLAIM_SCHEDULE_NONE,
    "SteppedDepositLimit": STEPPED_DEPOSIT_LIMIT_NONE,
    **dict.fromkeys(
        ["DepositLimit", "DepositCooldown", "PerCooldownDepositLimit", "MinimumDepositAmount"],
        U64_NONE,
    ),
    "MinimumQuoteTokenThreshold": U64_NONE,
}


def _extension(name: str, parts: list[tuple[str, Struct]]) -> DataEnum:
    """An instruction's extension: one variant per part, named as the field it holds."""
    variants = [(kind, [Field(kind[0].lower() + kind[1:], codec)]) for kind, codec in parts]
    return DataEnum(name, variants)


def _extensions(name: str, parts: list[Field], tail: int) -> Struct:
    """An account's extensions: reserved, then every part, then padding."""
    return Struct(name, [pad("reserved", 8), *parts, pad("padding", tail)])


_LAUNCH_POOL = [
    ("BackendSigner", BACKEND_SIGNER),
    ("DepositPenalty", LINEAR_BPS_SCHEDULE_V2),
    ("WithdrawPenalty", LINEAR_BPS_SCHEDULE_V2),
    ("BonusSchedule", LINEAR_BPS_SCHEDULE_V2),
    ("DepositLimit", DEPOSIT_LIMIT),
    ("Allowlist", ALLOWLIST_INIT_ARGS),
    ("ClaimSchedule", CLAIM_SCHEDULE),
    ("MinimumDepositAmount", MINIMUM_DEPOSIT_AMOUNT),
    ("MinimumQuoteTokenThreshold", MINIMUM_QUOTE_TOKEN_THRESHOLD),
]
_PRESALE = [
    ("BackendSigner", BACKEND_SIGNER),
    ("DepositLimit", DEPOSIT_LIMIT),
    ("DepositCooldown", DEPOSIT_COOLDOWN),
    ("PerCooldownDepositLimit", PER_COOLDOWN_DEPOSIT_LIMIT),
    ("Allowlist", ALLOWLIST_INIT_ARGS),
    ("SteppedDepositLimit", STEPPED_DEPOSIT_LIMIT),
    ("ClaimSchedule", CLAIM_SCHEDULE),
    ("MinimumDepositAmount", MINIMUM_DEPOSIT_AMOUNT),
]
_RAYDIUM = [
    ("BackendSigner", BACKEND_SIGNER),
    ("LpLockSchedule", CLAIM_SCHEDULE),
    ("CreatorFee", CREATOR_FEE_INIT_ARGS),
]


def _as_fields(parts: list[tuple[str, Struct]], swap: dict[str, Struct]) -> list[Field]:
    return [fixed(k[0].lower() + k[1:], swap.get(k, codec)) for k, codec in parts]


LAUNCH_POOL_V2_EXTENSION = _extension("LaunchPoolV2Extension", _LAUNCH_POOL)
PRESALE_V2_EXTENSION = _extension("PresaleV2Extension", _PRESALE)
UNLOCKED_V2_EXTENSION = _extension("UnlockedV2Extension", [("BackendSigner", BACKEND_SIGNER)])
RAYDIUM_CPMM_V2_EXTENSION = _extension("RaydiumCpmmV2Extension", _RAYDIUM)
BONDING_CURVE_V2_EXTENSION = DataEnum(
    "BondingCurveV2Extension",
    [
        ("BackendSigner", [Field("backendSigner", BACKEND_SIGNER)]),
        ("FirstBuy", list(FIRST_BUY.fields)),
        ("CreatorFee", [Field("creatorFee", CREATOR_FEE_INIT_ARGS)]),
    ],
)

_ON_ACCOUNT = {"Allowlist": ALLOWLIST, "CreatorFee": CREATOR_FEE}
LAUNCH_POOL_V2_EXTENSIONS = _extensions(
    "LaunchPoolV2Extensions", _as_fields(_LAUNCH_POOL, _ON_ACCOUNT), 160
)
PRESALE_V2_EXTENSIONS = _extensions("PresaleV2Extensions", _as_fields(_PRESALE, _ON_ACCOUNT), 128)
RAYDIUM_CPMM_V2_EXTENSIONS = _extensions(
    "RaydiumCpmmV2Extensions", _as_fields(_RAYDIUM, _ON_ACCOUNT), 80
)
UNLOCKED_V2_EXTENSIONS = _extensions(
    "UnlockedV2Extensions", [Field("backendSigner", PUBKEY, Pubkey.default())], 128
)
STREAMFLOW_V2_EXTENSIONS = _extensions(
    "StreamflowV2Extensions",
    [
        Field("backendSigner", PUBKEY, Pubkey.default()),
        none("streamflowAuthority", FixedOption(PUBKEY, bytes(32))),
    ],
    96,
)
BONDING_CURVE_V2_EXTENSIONS = Struct(
    "BondingCurveV2Extensions",
    [
        pad("reserved", 8),
        fixed("backendSigner", BACKEND_SIGNER),
        fixed("firstBuy", FIRST_BUY),
        Field("firstBuyDone", BOOL, False),
        pad("paddingAlign", 7),
        fixed("creatorFee", CREATOR_FEE),
        pad("padding", 72),
    ],
)


# Values, as the JS client takes them.
def time_absolute(time: int) -> dict[str, Any]:
    """A condition met at unix time `time`."""
    return variant("TimeAbsolute", time=time)


def time_relative(bucket: Pubkey, bucket_time: BucketTimes, offset: int = 0) -> dict[str, Any]:
    """A condition met `offset` seconds after `bucket`'s `bucket_time`."""
    return variant("TimeRelative", bucket=bucket, bucketTime=bucket_time, timeOffset=offset)


def always() -> dict[str, Any]:
    """A condition met from the start."""
    return variant("Always")


def never() -> dict[str, Any]:
    """A condition never met."""
    return variant("Never")


def triggered() -> dict[str, Any]:
    """A condition met when a behavior or a graduation triggers it."""
    return variant("Triggered")
