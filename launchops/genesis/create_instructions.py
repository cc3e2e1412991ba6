"""The instructions of a create, as `@metaplex-foundation/genesis` 0.35.0 generates them
(`dist/src/generated/instructions/`): `initializeV2` and `finalizeV2`. Defaults are the
JS client's; padding is zeros unless given.
"""

from __future__ import annotations

from launchops.genesis.codec import STRING, U8, U16, U64, Field, pad
from launchops.genesis.instruction_spec import Account, Ata, Context, InstructionSpec, Pda, acc
from launchops.genesis.pdas import (
    ASSOCIATED_TOKEN_PROGRAM,
    FEE_WALLET,
    NATIVE_MINT,
    SYSTEM_PROGRAM,
    TOKEN_METADATA_PROGRAM,
    TOKEN_PROGRAM,
)

PAYER, IDENTITY = Context("payer"), Context("identity")
QUOTE_MINT = acc("quoteMint", "?", NATIVE_MINT)
PAYS = acc("payer", "ws?", PAYER)
AUTHORITY = acc("authority", "s?")
BASE_TOKEN_PROGRAM = acc("baseTokenProgram", "?", TOKEN_PROGRAM)
QUOTE_TOKEN_PROGRAM = acc("quoteTokenProgram", "?", TOKEN_PROGRAM)
ATA_PROGRAM = acc("associatedTokenProgram", "?", ASSOCIATED_TOKEN_PROGRAM)
SYSTEM = acc("systemProgram", "?", SYSTEM_PROGRAM)


def spec(
    name: str, discriminator: int, *parts: Field | Account, remaining: str | None = None
) -> InstructionSpec:
    """An instruction from its data's fields and its accounts, in order."""
    fields = [p for p in parts if isinstance(p, Field)]
    accounts = [p for p in parts if isinstance(p, Account)]
    return InstructionSpec(name, discriminator, fields, accounts, remaining)


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

CREATE = (INITIALIZE_V2, FINALIZE_V2)
