"""What launchops checks in a fund or withdraw transaction before it signs anything.

The service builds these transactions; the creator's key signs them. So each is read
instruction by instruction first: the money goes where it was asked, in the amount asked,
nothing else moves funds, and nobody else signs. Anything else is refused, unsigned.
"""

from __future__ import annotations

import struct

from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.chain.signing import required_signers
from launchops.errors import TransactionRefused

MEMO_PROGRAMS = frozenset(
    {p.MEMO_PROGRAM, Pubkey.from_string("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")}
)


def _transfer(data: bytes) -> int | None:
    """Lamports of a System transfer instruction's data, else None."""
    if len(data) == 12 and struct.unpack_from("<I", data)[0] == p.SYSTEM_TRANSFER:
        return struct.unpack_from("<Q", data, 4)[0]
    return None


def check_fund(
    tx: VersionedTransaction, *, agent: Pubkey, sender: Pubkey, lamports: int, memo: str
) -> None:
    wallet = p.agent_wallet(agent)
    _only_signer(tx, sender)
    keys = tx.message.account_keys
    transfers, memos = 0, 0
    for index, ix in enumerate(tx.message.instructions):
        program = keys[ix.program_id_index]
        accounts = [keys[i] for i in ix.accounts]
        data = bytes(ix.data)
        if program == p.COMPUTE_BUDGET_PROGRAM:
            continue
        if program == p.SYSTEM_PROGRAM and _transfer(data) is not None:
            amount = _transfer(data)
            if accounts[:2] != [sender, wallet]:
                raise TransactionRefused(
                    f"instruction {index + 1} moves funds from {accounts[0]} to {accounts[1]}, "
                    f"not from {sender} to the agent's wallet {wallet}"
                )
            if amount != lamports:
                raise TransactionRefused(
                    f"instruction {index + 1} moves {amount} lamports, not {lamports}"
                )
            transfers += 1
        elif program in MEMO_PROGRAMS:
            if data.decode(errors="replace") != memo:
                raise TransactionRefused(f"the memo is {data[:80]!r}, not {memo!r}")
            memos += 1
        else:
            raise TransactionRefused(
                f"instruction {index + 1} calls {program}, which a fund does not need"
            )
    if transfers != 1 or memos != 1:
        raise TransactionRefused(
            f"a fund is one transfer and one memo; this has {transfers} and {memos}"
        )


def check_withdraw(
    tx: VersionedTransaction, *, agent: Pubkey, sender: Pubkey, lamports: int
) -> None:
    wallet = p.agent_wallet(agent)
    _only_signer(tx, sender)
    keys = tx.message.account_keys
    executes = 0
    for index, ix in enumerate(tx.message.instructions):
        program = keys[ix.program_id_index]
        if program == p.COMPUTE_BUDGET_PROGRAM:
            continue
        if program != p.MPL_CORE_PROGRAM:
            raise TransactionRefused(
                f"instruction {index + 1} calls {program}, which a withdraw does not need"
            )
        accounts = [keys[i] for i in ix.accounts]
        data = bytes(ix.data)
        if not data or data[0] != p.EXECUTE_DISCRIMINATOR or len(data) < 5:
            raise TransactionRefused(f"instruction {index + 1} is not an mpl-core Execute")
        inner = data[5 : 5 + struct.unpack_from("<I", data, 1)[0]]
        amount = _transfer(inner)
        if (
            accounts[0] != agent
            or accounts[2] != wallet
            or accounts[3] != sender
            or accounts[4] != sender
        ):
            raise TransactionRefused(
                f"instruction {index + 1} executes for another asset, wallet or owner"
            )
        if accounts[6] != p.SYSTEM_PROGRAM or amount is None:
            raise TransactionRefused(
                f"instruction {index + 1} executes something other than a transfer"
            )
        if accounts[7:9] != [wallet, sender]:
            raise TransactionRefused(
                f"the transfer goes from {accounts[7]} to {accounts[8]}, not to {sender}"
            )
        if amount != lamports:
            raise TransactionRefused(f"the transfer moves {amount} lamports, not {lamports}")
        executes += 1
    if executes != 1:
        raise TransactionRefused(f"a withdraw is one Execute; this has {executes}")


def _only_signer(tx: VersionedTransaction, sender: Pubkey) -> None:
    signers = required_signers(tx)
    if signers != [sender]:
        others = ", ".join(str(s) for s in signers if s != sender) or "none"
        raise TransactionRefused(f"the transaction needs signers other than {sender}: {others}")
