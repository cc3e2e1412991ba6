"""The instructions of a create, as `@metaplex-foundation/genesis` 0.35.0 generates them
(`dist/src/generated/instructions/`): `initializeV2`, one add-bucket instruction per
allocation (each with its `Base` and `Extensions` forms where the client has them), then
`finalizeV2`. Defaults are the JS client's; padding is zeros unless given.
"""

from __future__ import annotations

import launchops.genesis.types as t
from launchops.genesis.codec import (
    BOOL,
    PUBKEY,
    STRING,
    U8,
    U16,
    U64,
    Array,
    DataEnum,
    Field,
    FixedOption,
    none,
    pad,
)
from launchops.genesis.instruction_spec import Account, Ata, Context, InstructionSpec, Pda, acc
from launchops.genesis.pdas import (
    ASSOCIATED_TOKEN_PROGRAM,
    FEE_WALLET,
    NATIVE_MINT,
    SYSTEM_PROGRAM,
    TOKEN_METADATA_PROGRAM,
    TOKEN_PROGRAM,
    find_raydium_signer,
)

PAYER, IDENTITY = Context("payer"), Context("identity")
QUOTE_MINT = acc("quoteMint", "?", NATIVE_MINT)
PAYS = acc("payer", "ws?", PAYER)
AUTHORITY = acc("authority", "s?")
BASE_TOKEN_PROGRAM = acc("baseTokenProgram", "?", TOKEN_PROGRAM)
QUOTE_TOKEN_PROGRAM = acc("quoteTokenProgram", "?", TOKEN_PROGRAM)
ATA_PROGRAM = acc("associatedTokenProgram", "?", ASSOCIATED_TOKEN_PROGRAM)
SYSTEM = acc("systemProgram", "?", SYSTEM_PROGRAM)
PROGRAMS = (QUOTE_TOKEN_PROGRAM, ATA_PROGRAM, SYSTEM)
BUCKET_QUOTE = acc("bucketQuoteTokenAccount", "w?", Ata("quoteMint", "bucket"))

HEAD = (Field("bucketIndex", U8, 0), pad("padding", 6), Field("baseTokenAllocation", U64, 10**9))
HEAD_NO_DEFAULTS = (Field("bucketIndex", U8), pad("padding", 6), Field("baseTokenAllocation", U64))
BEHAVIORS = Field("endBehaviors", Array(t.BEHAVIOR), [])
BACKEND_SIGNER = t.fixed("backendSigner", t.BACKEND_SIGNER)


def conditions(*names: str) -> tuple[Field, ...]:
    """A condition field for each of `names`."""
    return tuple(Field(name, t.CONDITION) for name in names)


DEPOSIT_CLAIM = conditions(
    "depositStartCondition", "depositEndCondition", "claimStartCondition", "claimEndCondition"
)


def adding(kind: str, base_mint: str = "") -> tuple[Account, ...]:
    """The accounts of most add-bucket instructions, their bucket a `kind` PDA."""
    return (
        acc("genesisAccount", "w"),
        acc("bucket", "w?", Pda("bucket", kind)),
        acc("baseMint", base_mint),
        QUOTE_MINT,
        BUCKET_QUOTE,
        PAYS,
        AUTHORITY,
    )


def extending(extension: DataEnum, *more: Account) -> list[Field | Account]:
    """An `...Extensions` instruction's fields, then its accounts (bucket given)."""
    return [
        pad("padding", 3),
        Field("extensions", Array(extension)),
        acc("genesisAccount"),
        acc("bucket", "w"),
        PAYS,
        AUTHORITY,
        *more,
    ]


def spec(
    name: str, discriminator: int, *parts: Field | Account, remaining: str | None = None
) -> InstructionSpec:
    """An instruction from its data's fields and its accounts, in order."""
    fields = [p for p in parts if isinstance(p, Field)]
    accounts = [p for p in parts if isinstance(p, Account)]
    return InstructionSpec(name, discriminator, fields, accounts, remaining)


# A base-only form takes every account as given, bar the payer and the System program.
GIVEN_BASE = (
    acc("genesisAccount", "w"),
    acc("bucket", "w"),
    acc("baseMint"),
    acc("quoteMint"),
    acc("bucketQuoteTokenAccount", "w"),
    PAYS,
    AUTHORITY,
)
GIVEN_PROGRAMS = (acc("quoteTokenProgram"), acc("associatedTokenProgram"), SYSTEM)

INITIALIZE_V2 = spec(
    "initializeV2",
    42,
    Field("decimals", U8, 9),
    Field("genesisIndex", U16, 0),
    Field("fundingMode", U8),
    pad("padding", 3),
    Field("totalSupplyBaseToken", U64),
    *(Field(name, STRING) for name in ("name", "uri", "symbol")),
    acc("genesisAccount", "w?", Pda("genesis")),
    acc("baseMint", "wm"),
    QUOTE_MINT,
    acc("genesisBaseTokenAccount", "w?", Ata("baseMint", "genesisAccount")),
    acc("genesisQuoteTokenAccount", "w?", Ata("quoteMint", "genesisAccount")),
    PAYS,
    AUTHORITY,
    acc("metadata", "w?", Pda("metadata")),
    acc("feeWallet", "?", FEE_WALLET),
    acc("feeQuoteTokenAccount", "w?", Ata("quoteMint", "feeWallet")),
    acc("authoritySourceBaseTokenAccount", "w?", Ata("baseMint", "authority", "payer")),
    BASE_TOKEN_PROGRAM,
    QUOTE_TOKEN_PROGRAM,
    ATA_PROGRAM,
    acc("tokenMetadataProgram", "?", TOKEN_METADATA_PROGRAM),
    SYSTEM,
)
FINALIZE_V2 = spec(
    "finalizeV2",
    46,
    pad("padding", 7),
    acc("genesisAccount", "w"),
    acc("baseMint", "w"),
    acc("authority", "s?", IDENTITY),
)

ADD_LAUNCH_POOL_BUCKET_V2 = spec(
    "addLaunchPoolBucketV2",
    67,
    *HEAD,
    *DEPOSIT_CLAIM,
    BACKEND_SIGNER,
    t.fixed("depositPenalty", t.LINEAR_BPS_SCHEDULE_V2),
    t.fixed("withdrawPenalty", t.LINEAR_BPS_SCHEDULE_V2),
    t.fixed("bonusSchedule", t.LINEAR_BPS_SCHEDULE_V2),
    t.fixed("depositLimit", t.DEPOSIT_LIMIT),
    t.fixed("allowlist", t.ALLOWLIST_INIT_ARGS),
    t.fixed("claimSchedule", t.CLAIM_SCHEDULE),
    t.fixed("minimumDepositAmount", t.MINIMUM_DEPOSIT_AMOUNT),
    t.fixed("minimumQuoteTokenThreshold", t.MINIMUM_QUOTE_TOKEN_THRESHOLD),
    pad("reserved", 4),
    BEHAVIORS,
    *adding("LaunchPoolBucketV2"),
    *PROGRAMS,
)
ADD_LAUNCH_POOL_BUCKET_V2_BASE = spec(
    "addLaunchPoolBucketV2Base", 72, *HEAD, *DEPOSIT_CLAIM, *adding("LaunchPoolBucketV2"), *PROGRAMS
)
ADD_LAUNCH_POOL_BUCKET_V2_EXTENSIONS = spec(
    "addLaunchPoolBucketV2Extensions", 73, *extending(t.LAUNCH_POOL_V2_EXTENSION)
)

CAP = Field("allocationQuoteTokenCap", U64)
ADD_PRESALE_BUCKET_V2 = spec(
    "addPresaleBucketV2",
    50,
    *HEAD,
    CAP,
    *DEPOSIT_CLAIM,
    BACKEND_SIGNER,
    t.fixed("depositLimit", t.DEPOSIT_LIMIT),
    t.fixed("depositCooldown", t.DEPOSIT_COOLDOWN),
    t.fixed("perCooldownDepositLimit", t.PER_COOLDOWN_DEPOSIT_LIMIT),
    t.fixed("allowlist", t.ALLOWLIST_INIT_ARGS),
    t.fixed("steppedDepositLimit", t.STEPPED_DEPOSIT_LIMIT),
    t.fixed("claimSchedule", t.CLAIM_SCHEDULE),
    t.fixed("minimumDepositAmount", t.MINIMUM_DEPOSIT_AMOUNT),
    pad("reserved", 4),
    BEHAVIORS,
    *adding("PresaleBucketV2", "w"),
    *PROGRAMS,
)
ADD_PRESALE_BUCKET_V2_BASE = spec(
    "addPresaleBucketV2Base", 77, *HEAD, CAP, *DEPOSIT_CLAIM, *adding("PresaleBucketV2"), *PROGRAMS
)
ADD_PRESALE_BUCKET_V2_EXTENSIONS = spec(
    "addPresaleBucketV2Extensions", 78, *extending(t.PRESALE_V2_EXTENSION)
)

CLAIMS = conditions("claimStartCondition", "claimEndCondition")
RECIPIENT = acc("recipient", "?")
ADD_UNLOCKED_BUCKET_V2 = spec(
    "addUnlockedBucketV2",
    53,
    *HEAD,
    *CLAIMS,
    BACKEND_SIGNER,
    *adding("UnlockedBucketV2", "w"),
    RECIPIENT,
    *PROGRAMS,
)
ADD_UNLOCKED_BUCKET_V2_BASE = spec(
    "addUnlockedBucketV2Base",
    97,
    *HEAD_NO_DEFAULTS,
    *CLAIMS,
    *GIVEN_BASE,
    RECIPIENT,
    *GIVEN_PROGRAMS,
)
ADD_UNLOCKED_BUCKET_V2_EXTENSIONS = spec(
    "addUnlockedBucketV2Extensions", 98, *extending(t.UNLOCKED_V2_EXTENSION)
)

ADD_STREAMFLOW_BUCKET_V2 = spec(
    "addStreamflowBucketV2",
    102,
    *HEAD,
    Field("config", t.STREAMFLOW_CONFIG),
    *conditions("lockStartCondition", "lockEndCondition"),
    BACKEND_SIGNER,
    none("streamflowAuthority", FixedOption(PUBKEY, bytes(32))),
    *adding("StreamflowBucketV2"),
    RECIPIENT,
    *PROGRAMS,
)

RAYDIUM_HEAD = (Field("bucketIndex", U8, 0), pad("padding", 6), Field("baseTokenAllocation", U64))
BUCKET_SIGNER = acc("bucketSigner", "w?", Pda("bucketSigner"))
RAYDIUM_SIGNER = acc("raydiumSigner", "w?", find_raydium_signer()[0])
SIGNER_QUOTE = acc("bucketSignerQuoteTokenAccount", "w?", Ata("quoteMint", "bucketSigner"))
RAYDIUM_BUCKET = acc("bucket", "w?", Pda("bucket", "RaydiumCpmmBucketV2"))
START = Field("startCondition", t.CONDITION)
DEFER = Field("deferPoolCreationCost", BOOL, False)
ADD_RAYDIUM_CPMM_BUCKET_V2 = spec(
    "addRaydiumCpmmBucketV2",
    55,
    *RAYDIUM_HEAD,
    BACKEND_SIGNER,
    t.fixed("lpLockSchedule", t.CLAIM_SCHEDULE),
    none("lpClaimAuthority", FixedOption(PUBKEY, bytes(32))),
    START,
    DEFER,
    pad("reserved", 3),
    t.fixed("creatorFee", t.CREATOR_FEE_INIT_ARGS),
    BEHAVIORS,
    acc("genesisAccount", "w"),
    RAYDIUM_BUCKET,
    acc("baseMint"),
    QUOTE_MINT,
    BUCKET_SIGNER,
    RAYDIUM_SIGNER,
    SIGNER_QUOTE,
    PAYS,
    AUTHORITY,
    BASE_TOKEN_PROGRAM,
    *PROGRAMS,
)
ADD_RAYDIUM_CPMM_BUCKET_V2_BASE = spec(
    "addRaydiumCpmmBucketV2Base",
    92,
    *RAYDIUM_HEAD,
    START,
    DEFER,
    pad("reserved", 7),
    acc("genesisAccount", "w"),
    RAYDIUM_BUCKET,
    BUCKET_SIGNER,
    acc("baseMint"),
    QUOTE_MINT,
    RAYDIUM_SIGNER,
    SIGNER_QUOTE,
    PAYS,
    AUTHORITY,
    BASE_TOKEN_PROGRAM,
    *PROGRAMS,
)
ADD_RAYDIUM_CPMM_BUCKET_V2_EXTENSIONS = spec(
    "addRaydiumCpmmBucketV2Extensions", 93, *extending(t.RAYDIUM_CPMM_V2_EXTENSION)
)

CURVE = (
    *conditions("swapStartCondition", "swapEndCondition"),
    Field("virtualSol", U64),
    Field("virtualTokens", U64),
)
FIRST_BUYER = acc("firstBuyer", "s?")
ADD_CONSTANT_PRODUCT_BONDING_CURVE_BUCKET_V2 = spec(
    "addConstantProductBondingCurveBucketV2",
    64,
    *RAYDIUM_HEAD,
    *CURVE,
    BACKEND_SIGNER,
    Field("firstBuyQuoteAmount", U64, 0),
    t.fixed("creatorFee", t.CREATOR_FEE_INIT_ARGS),
    pad("reserved", 4),
    BEHAVIORS,
    *adding("BondingCurveBucketV2"),
    FIRST_BUYER,
    *PROGRAMS,
)
ADD_CONSTANT_PRODUCT_BONDING_CURVE_BUCKET_V2_BASE = spec(
    "addConstantProductBondingCurveBucketV2Base",
    87,
    *HEAD_NO_DEFAULTS,
    *CURVE,
    *GIVEN_BASE,
    *GIVEN_PROGRAMS,
)
ADD_BONDING_CURVE_BUCKET_V2_EXTENSIONS = spec(
    "addBondingCurveBucketV2Extensions", 88, *extending(t.BONDING_CURVE_V2_EXTENSION, FIRST_BUYER)
)


def behaving(name: str, discriminator: int) -> InstructionSpec:
    """A `set...BucketV2Behaviors` instruction: a bucket's end behaviors, set once."""
    return spec(
        name,
        discriminator,
        pad("padding", 3),
        Field("endBehaviors", Array(t.BEHAVIOR)),
        acc("genesisAccount"),
        acc("bucket", "w"),
        PAYS,
        AUTHORITY,
        SYSTEM,
    )


SET_LAUNCH_POOL_BUCKET_V2_BEHAVIORS = behaving("setLaunchPoolBucketV2Behaviors", 75)
SET_PRESALE_BUCKET_V2_BEHAVIORS = behaving("setPresaleBucketV2Behaviors", 80)
SET_BONDING_CURVE_BUCKET_V2_BEHAVIORS = behaving("setBondingCurveBucketV2Behaviors", 90)

CREATE = (
    INITIALIZE_V2,
    FINALIZE_V2,
    ADD_LAUNCH_POOL_BUCKET_V2,
    ADD_LAUNCH_POOL_BUCKET_V2_BASE,
    ADD_LAUNCH_POOL_BUCKET_V2_EXTENSIONS,
    ADD_PRESALE_BUCKET_V2,
    ADD_PRESALE_BUCKET_V2_BASE,
    ADD_PRESALE_BUCKET_V2_EXTENSIONS,
    ADD_UNLOCKED_BUCKET_V2,
    ADD_UNLOCKED_BUCKET_V2_BASE,
    ADD_UNLOCKED_BUCKET_V2_EXTENSIONS,
    ADD_STREAMFLOW_BUCKET_V2,
    ADD_RAYDIUM_CPMM_BUCKET_V2,
    ADD_RAYDIUM_CPMM_BUCKET_V2_BASE,
    ADD_RAYDIUM_CPMM_BUCKET_V2_EXTENSIONS,
    ADD_CONSTANT_PRODUCT_BONDING_CURVE_BUCKET_V2,
    ADD_CONSTANT_PRODUCT_BONDING_CURVE_BUCKET_V2_BASE,
    ADD_BONDING_CURVE_BUCKET_V2_EXTENSIONS,
    SET_LAUNCH_POOL_BUCKET_V2_BEHAVIORS,
    SET_PRESALE_BUCKET_V2_BEHAVIORS,
    SET_BONDING_CURVE_BUCKET_V2_BEHAVIORS,
)
