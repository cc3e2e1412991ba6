"""Adding the creator's signature to transactions the service partly signed."""

from __future__ import annotations

from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import MessageV0, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.errors import SigningError


def required_signers(tx: VersionedTransaction) -> list[Pubkey]:
    return list(tx.message.account_keys[: tx.message.header.num_required_signatures])


def sign_partial(raw: bytes, keypair: Keypair) -> VersionedTransaction:
    """Our signature in our slot; every other signature kept, and checked to be valid."""
    tx = VersionedTransaction.from_bytes(raw)
    signers = required_signers(tx)
    me = keypair.pubkey()
    if me not in signers:
        raise SigningError(f"the transaction does not need a signature from {me}")
    message_bytes = to_bytes_versioned(tx.message)
    signatures = list(tx.signatures)
    for signer, signature in zip(signers, signatures, strict=True):
        if signer == me or signature == Signature.default():
            continue
        if not signature.verify(signer, message_bytes):
            raise SigningError(f"the service's signature for {signer} does not verify")
    signatures[signers.index(me)] = keypair.sign_message(message_bytes)
    missing = [
        str(s) for s, sig in zip(signers, signatures, strict=True) if sig == Signature.default()
    ]
    if missing:
        raise SigningError(f"the transaction also needs signatures from {', '.join(missing)}")
    return VersionedTransaction.populate(tx.message, signatures)


def only_ours(raw: bytes, me: Pubkey) -> bool:
    """Whether every required signer is `me`: only then may we re-sign with a new blockhash."""
    return required_signers(VersionedTransaction.from_bytes(raw)) == [me]


def resign(raw: bytes, keypair: Keypair, blockhash: Hash) -> VersionedTransaction:
    """The same instructions under a fresh blockhash, signed by us alone."""
    tx = VersionedTransaction.from_bytes(raw)
    if required_signers(tx) != [keypair.pubkey()]:
        raise SigningError("only a transaction whose one signer is ours can be re-signed")
    old = tx.message
    if not isinstance(old, MessageV0):
        raise SigningError("only v0 messages are re-signed")
    message = MessageV0(
        old.header, old.account_keys, blockhash, old.instructions, old.address_table_lookups
    )
    return VersionedTransaction(message, [keypair])


def first_signature(tx: VersionedTransaction) -> Signature:
    return tx.signatures[0]
