"""Signing, sending and confirming in tests, through solana-py against the sandbox's RPC."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from solana.rpc.async_api import AsyncClient
from solana.rpc.models import TxOpts
from solders.keypair import Keypair
from solders.message import to_bytes_versioned
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.api import LaunchConfig
from tests.api import examples as ex


def sign(raw: bytes, *keypairs: Keypair) -> VersionedTransaction:
    """Add our signatures to a partly signed transaction, keeping the others."""
    tx = VersionedTransaction.from_bytes(raw)
    message = tx.message
    signers = list(message.account_keys[: message.header.num_required_signatures])
    signatures = list(tx.signatures)
    for keypair in keypairs:
        signatures[signers.index(keypair.pubkey())] = keypair.sign_message(
            to_bytes_versioned(message)
        )
    return VersionedTransaction.populate(message, signatures)


async def wait_for(
    rpc: AsyncClient, signature: Signature, level: str = "confirmed", deadline: float = 20
) -> Any:
    """Poll until the signature reaches `level`; fail after `deadline` seconds."""
    order = ["processed", "confirmed", "finalized"]
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        status = (
            await rpc.get_signature_statuses([signature], search_transaction_history=True)
        ).value[0]
        if status is not None and status.confirmation_status is not None:
            reached = str(status.confirmation_status).rsplit(".", 1)[-1].lower()
            if order.index(reached) >= order.index(level):
                return status
        await asyncio.sleep(0.01)
    raise AssertionError(f"{signature} did not reach {level} in {deadline} s")


async def send_all(
    rpc: AsyncClient, transactions: list[bytes], keypair: Keypair
) -> list[Signature]:
    signatures = []
    for raw in transactions:
        tx = sign(raw, keypair)
        signature = (
            await rpc.send_raw_transaction(bytes(tx), opts=TxOpts(skip_confirmation=True))
        ).value
        status = await wait_for(rpc, signature)
        assert status.err is None, status.err
        signatures.append(signature)
    return signatures


async def funded_keypair(rpc: AsyncClient, sol: int = 10) -> Keypair:
    keypair = Keypair()
    signature = (await rpc.request_airdrop(keypair.pubkey(), sol * 10**9)).value
    await wait_for(rpc, signature)
    return keypair


def launch_for(creator: Keypair, kind: str = "launchpool", **changes: Any) -> LaunchConfig:
    launch = ex.launchpool_launch() if kind == "launchpool" else ex.presale_launch()
    launch["publicKey"] = str(creator.pubkey())
    launch.update(changes)
    return LaunchConfig.model_validate(launch)


async def transfer_bytes(rpc: Any, payer: Keypair, lamports: int = 1) -> bytes:
    """A signed transfer of `lamports` from `payer` to a new key, on the latest blockhash
    (`rpc` a ChainRpc)."""
    from solders.message import MessageV0
    from solders.system_program import TransferParams, transfer

    blockhash, _ = await rpc.latest_blockhash()
    move = transfer(
        TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=lamports)
    )
    message = MessageV0.try_compile(payer.pubkey(), [move], [], blockhash)
    return bytes(VersionedTransaction(message, [payer]))
