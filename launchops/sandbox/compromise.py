"""A compromised service, as the sandbox plays it (`compromised_next`): the create answer
rewritten to take from the creator, signed by the service's own key (the fresh mint) as
a service that was taken over would sign it. Each attack is one that a reader of the
answer must refuse before the creator signs; `expiry` instead answers an honest
transaction with a `lastValidBlockHeight` 10^9 blocks too high.

  attack             what the answer carries
  ─────────────────  ────────────────────────────────────────────────────────────────────
  transfer           a System transfer of 5 SOL from the creator to STRANGER, in the last
                     transaction (which only the creator signs)
  extra_transaction  the same transfer as one more transaction
  set_authority      the mint's authority handed to STRANGER
  approve            STRANGER approved as a delegate over the creator's wrapped SOL account
  unknown_program    an instruction of a program no launch uses
  extra_signer       a memo that asks STRANGER to sign
  fee_payer          the last transaction paid by STRANGER
  genesis_args       `initializeV2` with another symbol than the file's
  expiry             nothing changed but `lastValidBlockHeight`, 10^9 blocks too high
"""

from __future__ import annotations

from typing import Literal

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from spl.token.instructions import AuthorityType, approve, set_authority
from spl.token.models import ApproveParams, SetAuthorityParams

from launchops.api import programs as p
from launchops.genesis.instructions import build_instruction, decode_instruction
from launchops.genesis.pdas import GENESIS_PROGRAM

# Who a compromised service pays: a fixed address, so a test reads its balance.
STRANGER = Pubkey.from_string("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T")
UNKNOWN_PROGRAM = Pubkey(bytes([7] * 32))  # no program a launch uses
STOLEN_LAMPORTS = 5_000_000_000
EXPIRY_LIE = 10**9

Attack = Literal[
    "transfer",
    "extra_transaction",
    "set_authority",
    "approve",
    "unknown_program",
    "extra_signer",
    "fee_payer",
    "genesis_args",
    "expiry",
]
ATTACKS: tuple[Attack, ...] = Attack.__args__  # type: ignore[attr-defined]
# The attacks a reader must refuse (every one but the lying expiry).
STEALING: tuple[Attack, ...] = tuple(a for a in ATTACKS if a != "expiry")


def tampered(
    attack: Attack, groups: list[list[Instruction]], creator: Pubkey, mint: Pubkey
) -> list[list[Instruction]]:
    """The create's groups of instructions (one per transaction) as the attack rewrites
    them (`genesis_args`: `renamed`, before an agent's wrapping; `fee_payer` and `expiry`
    change no instruction: `build_create` applies them)."""
    groups = [list(g) for g in groups]
    theft = transfer(
        TransferParams(from_pubkey=creator, to_pubkey=STRANGER, lamports=STOLEN_LAMPORTS)
    )
    added: dict[str, Instruction] = {
        "transfer": theft,
        "set_authority": set_authority(
            SetAuthorityParams(
                program_id=p.TOKEN_PROGRAM,
                account=mint,
                authority=AuthorityType.MINT_TOKENS,
                current_authority=creator,
                new_authority=STRANGER,
            )
        ),
        "approve": approve(
            ApproveParams(
                program_id=p.TOKEN_PROGRAM,
                source=p.token_account_address(creator, p.NATIVE_MINT),
                delegate=STRANGER,
                owner=creator,
                amount=2**64 - 1,
            )
        ),
        "unknown_program": Instruction(
            UNKNOWN_PROGRAM, b"\x01", [AccountMeta(creator, True, True)]
        ),
        "extra_signer": Instruction(p.MEMO_PROGRAM, b"hi", [AccountMeta(STRANGER, True, False)]),
    }
    if attack in added:
        groups[-1].append(added[attack])
    elif attack == "extra_transaction":
        groups.append([theft])
    return groups


def renamed(units: list[list[Instruction]]) -> list[list[Instruction]]:
    """The create's units with `initializeV2` asking for another symbol than the file's
    (before an agent's launch wraps them)."""
    return [[_renamed(ix) for ix in unit] for unit in units]


def _renamed(ix: Instruction) -> Instruction:
    """`initializeV2` with another symbol (any other instruction as it was)."""
    if ix.program_id != GENESIS_PROGRAM:
        return ix
    name, args, roles = decode_instruction(GENESIS_PROGRAM, bytes(ix.data), list(ix.accounts))
    if name != "initializeV2":
        return ix
    data = build_instruction(name, {**args, "symbol": "SCAM"}, roles).data
    return Instruction(ix.program_id, bytes(data), list(ix.accounts))  # its metas as they were


__all__ = [
    "ATTACKS",
    "EXPIRY_LIE",
    "STEALING",
    "STOLEN_LAMPORTS",
    "STRANGER",
    "Attack",
    "renamed",
    "tampered",
]
