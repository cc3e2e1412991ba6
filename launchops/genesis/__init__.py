"""The Genesis program (`GNS1S5J5AspKXgpjz6SvKL66kPaKWAhaGRhCqPRxii2B`) as its public JS
client, `@metaplex-foundation/genesis` 0.35.0, generates it, V2 only and what a launch
uses: the instructions of a create and after it (build and decode), the accounts (encode
and decode), the PDAs, the custom errors, and a mint's Token Metadata account. Plain
Python over solders; the sandbox builds and plays transactions with it, the client reads
and checks every transaction with it before signing.

- codec.py: the umi serializers (integers, strings, options, structs, enums).
- types.py: the program's types (conditions, end behaviors, schedules, extensions).
- create_instructions.py, after_instructions.py: each instruction's data and accounts.
- instructions.py: `build_instruction`, one builder per instruction, `decode_instruction`.
- accounts.py: `encode_account`, `decode_account`.
- pdas.py, errors.py, metadata.py.
"""

from __future__ import annotations

from launchops.genesis.accounts import (
    ACCOUNTS,
    Key,
    decode_account,
    decode_account_as,
    encode_account,
)
from launchops.genesis.codec import KIND, LayoutError, variant
from launchops.genesis.errors import GENESIS_ERRORS, describe
from launchops.genesis.instructions import (
    SPECS,
    DecodedInstruction,
    build_instruction,
    decode_instruction,
    instruction_problems,
)
from launchops.genesis.metadata import decode_metadata, encode_metadata, puff_out, unpuff
from launchops.genesis.pdas import (
    GENESIS_PROGRAM,
    associated_token_address,
    find_bucket_v2,
    find_deposit_v2,
    find_genesis_account_v2,
    find_metadata,
)
from launchops.genesis.types import BucketTimes, SwapDirection

__all__ = [
    "ACCOUNTS",
    "GENESIS_ERRORS",
    "GENESIS_PROGRAM",
    "KIND",
    "SPECS",
    "BucketTimes",
    "DecodedInstruction",
    "Key",
    "LayoutError",
    "SwapDirection",
    "associated_token_address",
    "build_instruction",
    "decode_account",
    "decode_account_as",
    "decode_instruction",
    "decode_metadata",
    "describe",
    "encode_account",
    "encode_metadata",
    "find_bucket_v2",
    "find_deposit_v2",
    "find_genesis_account_v2",
    "find_metadata",
    "instruction_problems",
    "puff_out",
    "unpuff",
    "variant",
]
