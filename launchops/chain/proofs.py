"""What proves a transaction landed, read from the transaction itself: the accounts it
creates. A System `CreateAccount` (the new account signs it: a fresh key nobody else
holds), and an associated token account of a mint the same create makes (nobody could
have made it before that mint existed). Found on chain, they prove it landed whatever a
node's status answers say (a node without transaction history, a lying or stale one).
An associated token account of an older mint proves nothing: it may have been there
before.

Only a transaction's own account keys are read: an instruction that reaches its accounts
through an address lookup table, or one wrapped in another program's instruction (an
agent's mpl-core Execute), proves nothing here, and its fate rests on its signature.
"""

from __future__ import annotations

import struct
from collections.abc import Collection

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api.programs import ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM

CREATE_ACCOUNT = 0  # System instruction indexes whose account 1 is the new account
CREATE_ACCOUNT_WITH_SEED = 3
ATA_CREATES = (b"", b"\x00", b"\x01")  # Create (old and new form), CreateIdempotent
ATA_MINT = 3  # payer, account, owner, mint, ...


def made_by(raw: bytes, fresh_mints: Collection[Pubkey] = ()) -> list[Pubkey]:
    """The accounts the signed transaction `raw` creates that prove it landed, in order,
    once each: its new accounts, and its associated token accounts of `fresh_mints`."""
    try:
        message = VersionedTransaction.from_bytes(raw).message
    except Exception:  # not a transaction we can read: it proves nothing
        return []
    keys = list(message.account_keys)
    made: list[Pubkey] = []
    for ix in message.instructions:
        accounts = list(ix.accounts)
        if ix.program_id_index >= len(keys) or len(accounts) < 2 or accounts[1] >= len(keys):
            continue
        program, data = keys[ix.program_id_index], bytes(ix.data)
        creates = (
            program == SYSTEM_PROGRAM
            and len(data) >= 4
            and struct.unpack_from("<I", data)[0] in (CREATE_ACCOUNT, CREATE_ACCOUNT_WITH_SEED)
        ) or (
            program == ASSOCIATED_TOKEN_PROGRAM
            and data in ATA_CREATES
            and len(accounts) > ATA_MINT
            and accounts[ATA_MINT] < len(keys)
            and keys[accounts[ATA_MINT]] in fresh_mints
        )
        if creates and keys[accounts[1]] not in made:
            made.append(keys[accounts[1]])
    return made


__all__ = ["made_by"]
