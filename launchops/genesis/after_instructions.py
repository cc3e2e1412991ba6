"""The instructions after a launch, as `@metaplex-foundation/genesis` 0.35.0 generates them:
swaps on the bonding curve, launch pool deposits and claims, unlocked and creator-fee
claims, graduation to Raydium CPMM and the claim of the pool's creator fee, and
`revokeV2` (the mint's and freeze authorities).
"""

from __future__ import annotations

import launchops.genesis.types as t
from launchops.genesis.codec import BOOL, U64, Enum, Field, pad
from launchops.genesis.create_instructions import (
    ATA_PROGRAM,
    BASE_TOKEN_PROGRAM,
    BUCKET_QUOTE,
    BUCKET_SIGNER,
    IDENTITY,
    PAYER,
    PAYS,
    PROGRAMS,
    QUOTE_MINT,
    QUOTE_TOKEN_PROGRAM,
    RAYDIUM_SIGNER,
    SIGNER_QUOTE,
    SYSTEM,
    spec,
)
from launchops.genesis.instruction_spec import Ata, Pda, acc
from launchops.genesis.pdas import FEE_WALLET, RENT_SYSVAR

GENESIS, BUCKET, BASE_MINT = acc("genesisAccount"), acc("bucket", "w"), acc("baseMint")
GENESIS_BASE = acc("genesisBaseTokenAccount", "w?", Ata("baseMint", "genesisAccount"))
BACKEND_SIGNER = acc("backendSigner", "s?")
FEE_QUOTE = acc("feeQuoteTokenAccount", "w?", Ata("quoteMint", FEE_WALLET))
ALL_PROGRAMS = (BASE_TOKEN_PROGRAM, *PROGRAMS)
SEVEN = pad("padding", 7)

SWAP_BONDING_CURVE_V2 = spec(
    "swapBondingCurveV2",
    65,
    Field("swapDirection", Enum(t.SwapDirection)),
    pad("padding", 6),
    Field("amount", U64),
    Field("minAmountOutScaled", U64),
    GENESIS,
    BUCKET,
    BASE_MINT,
    QUOTE_MINT,
    GENESIS_BASE,
    acc("baseTokenAccount", "w?", Ata("baseMint", "baseTokenOwner", "payer")),
    acc("quoteTokenAccount", "w?", Ata("quoteMint", "quoteTokenOwner", "payer")),
    BUCKET_QUOTE,
    PAYS,
    acc("quoteTokenOwner", "m?"),
    acc("baseTokenOwner", "m?"),
    BACKEND_SIGNER,
    FEE_QUOTE,
    *ALL_PROGRAMS,
)

# The merkle proof of an allowlisted depositor: read-only accounts after the others.
DEPOSIT_LAUNCH_POOL_V2 = spec(
    "depositLaunchPoolV2",
    68,
    SEVEN,
    Field("amountQuoteToken", U64),
    GENESIS,
    BUCKET,
    BASE_MINT,
    QUOTE_MINT,
    acc("recipientBaseTokenAccount", "w?", Ata("baseMint", "recipient", "depositor")),
    acc("depositorQuoteTokenAccount", "w?", Ata("quoteMint", "depositor")),
    BUCKET_QUOTE,
    acc("depositPda", "w?", Pda("deposit", "LaunchPoolDepositV2", "recipient", "depositor")),
    acc("rentPayer", "ws?", PAYER),
    acc("depositor", "s?", IDENTITY),
    acc("recipient", "s?"),
    BACKEND_SIGNER,
    FEE_QUOTE,
    *ALL_PROGRAMS,
    remaining="proof",
)

RECIPIENT_BASE = acc("recipientBaseTokenAccount", "w?", Ata("baseMint", "recipient"))
CLAIM_LAUNCH_POOL_V2 = spec(
    "claimLaunchPoolV2",
    70,
    SEVEN,
    GENESIS,
    BUCKET,
    BASE_MINT,
    QUOTE_MINT,
    GENESIS_BASE,
    RECIPIENT_BASE,
    acc("depositPda", "w?", Pda("deposit", "LaunchPoolDepositV2", "recipient")),
    acc("recipient", "?", PAYER),
    PAYS,
    BACKEND_SIGNER,
    FEE_QUOTE,
    *ALL_PROGRAMS,
)
CLAIM_UNLOCKED_V2 = spec(
    "claimUnlockedV2",
    54,
    SEVEN,
    GENESIS,
    BUCKET,
    BASE_MINT,
    QUOTE_MINT,
    BUCKET_QUOTE,
    GENESIS_BASE,
    RECIPIENT_BASE,
    acc("recipientQuoteTokenAccount", "w?", Ata("quoteMint", "recipient")),
    acc("recipient", "w?", PAYER),
    PAYS,
    BACKEND_SIGNER,
    FEE_QUOTE,
    *ALL_PROGRAMS,
)
CLAIM_BONDING_CURVE_CREATOR_FEE_V2 = spec(
    "claimBondingCurveCreatorFeeV2",
    105,
    SEVEN,
    GENESIS,
    BUCKET,
    BASE_MINT,
    QUOTE_MINT,
    BUCKET_QUOTE,
    acc("creatorFeeWallet"),
    acc("creatorFeeWalletQuoteTokenAccount", "w?", Ata("quoteMint", "creatorFeeWallet")),
    PAYS,
    *PROGRAMS,
)


GRADUATE_TO_RAYDIUM_CPMM_V2 = spec(
    "graduateToRaydiumCpmmV2",
    56,
    SEVEN,
    acc("genesisAccount", "w"),
    BUCKET,
    acc("baseMint", "w"),
    QUOTE_MINT,
    BUCKET_SIGNER,
    RAYDIUM_SIGNER,
    GENESIS_BASE,
    SIGNER_QUOTE,
    acc("bucketSignerLpTokenAccount", "w?", Ata("lpMint", "bucketSigner")),
    acc("raydiumSignerBaseTokenAccount", "w?", Ata("baseMint", "raydiumSigner")),
    acc("raydiumSignerQuoteTokenAccount", "w?", Ata("quoteMint", "raydiumSigner")),
    acc("raydiumSignerLpTokenAccount", "w?", Ata("lpMint", "raydiumSigner")),
    acc("poolState", "w"),
    acc("ammConfig"),
    acc("poolAuthority"),
    acc("lpMint", "w"),
    acc("baseVault", "w"),
    acc("quoteVault", "w"),
    acc("createPoolFee", "w"),
    acc("observationState", "w"),
    acc("permission"),
    acc("payer", "ws?"),  # no default here: the program id unless given
    BACKEND_SIGNER,
    acc("raydiumProgram"),
    BASE_TOKEN_PROGRAM,
    QUOTE_TOKEN_PROGRAM,
    ATA_PROGRAM,
    SYSTEM,
    acc("rent", "?", RENT_SYSVAR),
)
# The pool's creator fee, collected into the bucket signer's quote account, to the creator.
CLAIM_RAYDIUM_CREATOR_FEE_V2 = spec(
    "claimRaydiumCreatorFeeV2",
    106,
    SEVEN,
    GENESIS,
    BUCKET,
    BASE_MINT,
    QUOTE_MINT,
    acc("bucketSigner", "?", Pda("bucketSigner")),
    SIGNER_QUOTE,
    acc("creatorFeeWallet"),
    acc("creatorFeeWalletQuoteTokenAccount", "w?", Ata("quoteMint", "creatorFeeWallet")),
    PAYS,
    *PROGRAMS,
)
REVOKE_V2 = spec(
    "revokeV2",
    45,
    Field("revokeMintAuthority", BOOL),
    Field("revokeFreezeAuthority", BOOL),
    pad("padding", 5),
    acc("genesisAccount", "w"),
    acc("baseMint", "w"),
    acc("authority", "s?", IDENTITY),
    acc("baseTokenProgram"),
)

AFTER = (
    SWAP_BONDING_CURVE_V2,
    DEPOSIT_LAUNCH_POOL_V2,
    CLAIM_LAUNCH_POOL_V2,
    CLAIM_UNLOCKED_V2,
    CLAIM_BONDING_CURVE_CREATOR_FEE_V2,
    GRADUATE_TO_RAYDIUM_CPMM_V2,
    CLAIM_RAYDIUM_CREATOR_FEE_V2,
    REVOKE_V2,
)
