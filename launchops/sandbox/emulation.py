"""What a program that does not run here would do, played by the sandbox: an agent's
withdraw, the mpl-core `Execute` of an asset by its owner wrapping one System transfer
from the asset's wallet (its asset-signer PDA, which nothing here can sign for).

mpl-core is not available as a binary, so LiteSVM cannot run `Execute`. A transaction
that is exactly such withdraws (what `/agents/{address}/withdraw` builds, in any format)
lands by emulation, as the creator rewards do: its fee paid by its payer, each transfer
made by direct account writes once every check an `Execute` makes passed (the asset is
an mpl-core asset, its owner signed, the wallet is the asset's and holds the amount);
a wallet short of the amount fails on chain as the System program fails it. Anything
else runs on LiteSVM as before.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from solders.account import Account
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api import programs as p

if TYPE_CHECKING:
    from launchops.sandbox.chain import Chain

_TRANSFER = 2  # the System program's Transfer instruction
LAMPORTS_PER_SIGNATURE = 5000


@dataclass(frozen=True)
class Move:
    """One emulated transfer, out of an agent's wallet."""

    source: Pubkey
    target: Pubkey
    lamports: int


@dataclass(frozen=True)
class Withdraw:
    """A withdraw transaction's effect: its fee, then its moves, all or none."""

    payer: Pubkey
    fee: int
    moves: tuple[Move, ...]

    def apply(self, chain: Chain) -> Any:
        """Made on `chain`: None when it succeeded, else the error a node reports."""
        paying = chain.account(self.payer)
        if paying is None or paying.lamports < self.fee:
            return "InsufficientFundsForFee"
        _credit(chain, self.payer, -self.fee)
        needed: dict[Pubkey, int] = {}
        for index, move in enumerate(self.moves):
            needed[move.source] = needed.get(move.source, 0) + move.lamports
            held = chain.account(move.source)
            if held is None or held.lamports < needed[move.source]:
                return {"InstructionError": [index, {"Custom": 1}]}  # insufficient lamports
        for move in self.moves:
            _credit(chain, move.source, -move.lamports)
            _credit(chain, move.target, move.lamports)
        return None


def _credit(chain: Chain, key: Pubkey, lamports: int) -> None:
    held = chain.account(key)
    if held is None:
        held = Account(0, b"", p.SYSTEM_PROGRAM, False, 0)
    changed = Account(held.lamports + lamports, held.data, held.owner, held.executable, 0)
    chain.set_account(key, changed)


def withdraw_of(
    chain: Chain, owner_of: Callable[[Pubkey], Pubkey | None], tx: VersionedTransaction
) -> Withdraw | None:
    """The withdraw `tx` is, when it is only mpl-core `Execute`s of assets by their owners
    wrapping a System transfer out of each asset's wallet; None otherwise."""
    message = tx.message
    keys = chain.keys_of(tx)
    signers = set(message.account_keys[: message.header.num_required_signatures])
    moves = []
    for ix in message.instructions:
        accounts = [keys[i] for i in bytes(ix.accounts)]
        move = _move(keys[ix.program_id_index], bytes(ix.data), accounts)
        if move is None:
            return None
        asset, authority, found = move
        if authority not in signers or owner_of(asset) != authority:
            return None
        moves.append(found)
    if not moves:
        return None
    fee = LAMPORTS_PER_SIGNATURE * len(tx.signatures)
    return Withdraw(message.account_keys[0], fee, tuple(moves))


def _move(
    program: Pubkey, data: bytes, accounts: list[Pubkey]
) -> tuple[Pubkey, Pubkey, Move] | None:
    """(asset, authority, move) of one `Execute` wrapping a System transfer, else None."""
    if program != p.MPL_CORE_PROGRAM or len(data) < 5 or data[0] != p.EXECUTE_DISCRIMINATOR:
        return None
    if len(accounts) < 9:
        return None
    asset, _, signer, _, authority, _, inner_program, source, target = accounts[:9]
    [size] = struct.unpack_from("<I", data, 1)
    inner = data[5 : 5 + size]
    if inner_program != p.SYSTEM_PROGRAM or len(inner) != 12:
        return None
    kind, lamports = struct.unpack("<IQ", inner)
    if kind != _TRANSFER or signer != p.agent_wallet(asset) or source != signer:
        return None
    return asset, authority, Move(source, target, lamports)


__all__ = ["Move", "Withdraw", "withdraw_of"]
