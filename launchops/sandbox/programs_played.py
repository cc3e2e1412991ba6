"""The programs the sandbox plays where LiteSVM cannot run them, by program id: Genesis
(`genesis_play`, `genesis_swaps`, `genesis_graduation`) and mpl-core's `Execute` of an
agent's asset, which runs its inner instruction with the asset's wallet (its asset-signer
PDA) as a signer: a Genesis instruction played, any other run by LiteSVM. The Execute
checks mpl-core makes: the asset is an mpl-core asset, its owner signed, the wallet is the
asset's. Its execute fee is not charged."""

from __future__ import annotations

import struct

from solders.instruction import AccountMeta

from launchops.api import programs as p
from launchops.genesis.pdas import GENESIS_PROGRAM
from launchops.sandbox import genesis_graduation, genesis_swaps
from launchops.sandbox.genesis_play import play_genesis
from launchops.sandbox.play import Call, Play, Player, Refused

EXECUTE_ACCOUNTS = 7  # asset, collection, asset signer, payer, authority, system, program


def play_execute(play: Play, call: Call) -> None:
    data = call.data
    if len(data) < 5 or data[0] != p.EXECUTE_DISCRIMINATOR or len(call.accounts) < 7:
        raise Refused("InvalidInstructionData", "not an Execute")
    [size] = struct.unpack_from("<I", data, 1)
    asset, _, wallet, _, authority, _, program = (call.key(i) for i in range(EXECUTE_ACCOUNTS))
    held = play.account(asset)
    if held is None or held.owner != p.MPL_CORE_PROGRAM:
        raise Refused({"Custom": 3}, f"{asset} is not an mpl-core asset")
    if p.asset_owner(bytes(held.data)) != authority or authority not in play.signers:
        raise Refused({"Custom": 6}, f"{authority} is not the asset's owner, signing")
    if wallet != p.agent_wallet(asset):
        raise Refused({"Custom": 4}, f"{wallet} is not the asset's wallet")
    inner = Call(
        call.index,
        program,
        data[5 : 5 + size],
        tuple(
            AccountMeta(m.pubkey, m.is_signer or m.pubkey == wallet, m.is_writable)
            for m in call.accounts[EXECUTE_ACCOUNTS:]
        ),
    )
    signers = play.signers
    play.signers = signers | {wallet}
    try:
        if program == GENESIS_PROGRAM:
            play_genesis(play, inner)
        else:
            play.run_real([inner], call.key(3))
    finally:
        play.signers = signers


PLAYERS: dict = {GENESIS_PROGRAM: play_genesis, p.MPL_CORE_PROGRAM: play_execute}
assert genesis_swaps.PROGRAM == GENESIS_PROGRAM  # its instructions are Genesis's, played
assert "graduateToRaydiumCpmmV2" in genesis_graduation.HANDLERS  # and these

__all__ = ["PLAYERS", "Player", "play_execute"]
