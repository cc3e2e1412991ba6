"""What proves a transaction landed, read from the transaction itself: the accounts it
creates that nobody could have made before it. Found on chain, they prove it landed
whatever a node's status answers say (a node without transaction history, a lying or
stale one).

- A Genesis `initializeV2` of a fresh mint: the genesis account (the PDA of that mint),
  the mint and its metadata, all made by the program.
- A Genesis add-bucket instruction on such a genesis account: the bucket, when it is the
  PDA the program derives for its kind and index.
- A System `CreateAccount` (the new account signs it: a fresh key nobody else holds).
- An associated token account of a fresh mint (nobody could have made it before the mint
  existed); one of an older mint proves nothing: it may have been there before.

A Genesis instruction inside an agent's mpl-core `Execute` is read the same way. Only a
transaction's own account keys are read: an instruction that reaches its accounts through
an address lookup table proves nothing here, and its fate rests on its signature.
"""

from __future__ import annotations

import struct
from collections.abc import Collection

from solders.instruction import AccountMeta
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api.programs import (
    ASSOCIATED_TOKEN_PROGRAM,
    EXECUTE_DISCRIMINATOR,
    MPL_CORE_PROGRAM,
    SYSTEM_PROGRAM,
)
from launchops.genesis.codec import LayoutError
from launchops.genesis.instructions import ADDS_BUCKET, decode_instruction
from launchops.genesis.pdas import (
    GENESIS_PROGRAM,
    find_bucket_v2,
    find_genesis_account_v2,
    find_metadata,
)

CREATE_ACCOUNT = 0  # System instruction indexes whose account 1 is the new account
CREATE_ACCOUNT_WITH_SEED = 3
ATA_CREATES = (b"", b"\x00", b"\x01")  # Create (old and new form), CreateIdempotent
ATA_MINT = 3  # payer, account, owner, mint, ...
EXECUTE_ACCOUNTS = 7  # mpl-core Execute's own accounts, before the inner instruction's


def made_by(raw: bytes, fresh_mints: Collection[Pubkey] = ()) -> list[Pubkey]:
    """The accounts the signed transaction `raw` creates that prove it landed, in order,
    once each (`fresh_mints`: the mints its launch makes)."""
    try:
        message = VersionedTransaction.from_bytes(raw).message
    except Exception:  # not a transaction we can read: it proves nothing
        return []
    keys = list(message.account_keys)
    made: list[Pubkey] = []
    for ix in message.instructions:
        indexes = list(ix.accounts)
        if ix.program_id_index >= len(keys) or any(i >= len(keys) for i in indexes):
            continue
        accounts = [keys[i] for i in indexes]
        for key in _made(keys[ix.program_id_index], bytes(ix.data), accounts, fresh_mints):
            if key not in made:
                made.append(key)
    return made


def _made(
    program: Pubkey, data: bytes, accounts: list[Pubkey], fresh: Collection[Pubkey]
) -> list[Pubkey]:
    if program == SYSTEM_PROGRAM and len(data) >= 4 and len(accounts) >= 2:
        kind = struct.unpack_from("<I", data)[0]
        return [accounts[1]] if kind in (CREATE_ACCOUNT, CREATE_ACCOUNT_WITH_SEED) else []
    if program == ASSOCIATED_TOKEN_PROGRAM and data in ATA_CREATES and len(accounts) > ATA_MINT:
        return [accounts[1]] if accounts[ATA_MINT] in fresh else []
    if program == GENESIS_PROGRAM:
        return _made_by_genesis(data, accounts, fresh)
    if program == MPL_CORE_PROGRAM and data[:1] == bytes([EXECUTE_DISCRIMINATOR]):
        if len(data) < 5 or len(accounts) < EXECUTE_ACCOUNTS:
            return []
        [size] = struct.unpack_from("<I", data, 1)
        inner = data[5 : 5 + size]
        return _made(accounts[6], inner, accounts[EXECUTE_ACCOUNTS:], fresh)
    return []


def _made_by_genesis(
    data: bytes, accounts: list[Pubkey], fresh: Collection[Pubkey]
) -> list[Pubkey]:
    """What a Genesis instruction of a fresh mint's launch makes: its genesis account,
    mint and metadata (`initializeV2`), or a bucket as the program derives it."""
    try:
        name, args, roles = decode_instruction(
            GENESIS_PROGRAM, data, [AccountMeta(a, False, False) for a in accounts]
        )
    except LayoutError:
        return []
    mint = roles.get("baseMint")
    genesis = roles.get("genesisAccount")
    if name == "initializeV2" and mint in fresh:
        assert mint is not None
        if genesis != find_genesis_account_v2(mint, args["genesisIndex"])[0]:
            return []
        return [genesis, mint, find_metadata(mint)[0]]
    kind = ADDS_BUCKET.get(name)
    if kind is None or genesis is None or roles.get("bucket") is None:
        return []
    if not any(genesis == find_genesis_account_v2(m, 0)[0] for m in fresh):
        return []
    bucket = find_bucket_v2(kind, genesis, args["bucketIndex"])[0]
    return [bucket] if bucket == roles["bucket"] else []


__all__ = ["made_by"]
