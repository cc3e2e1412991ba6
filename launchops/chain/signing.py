"""Adding our signatures to transactions the service partly signed, and re-signing a tail
under a fresh blockhash, for every transaction format: legacy, v0 (with or without
address lookup tables) and v1."""

from __future__ import annotations

from collections.abc import Iterable

from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import Message, MessageV0, MessageV1, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.errors import SigningError

AnyMessage = Message | MessageV0 | MessageV1


def required_signers(tx: VersionedTransaction) -> list[Pubkey]:
    """The keys whose signatures the transaction needs, in the order of its signature slots."""
    return list(tx.message.account_keys[: tx.message.header.num_required_signatures])


def sign_partial(raw: bytes, keypair: Keypair, *others: Keypair) -> VersionedTransaction:
    """Our signature (`keypair`, the creator's) in our slot, and each of `others` where the
    transaction needs it (as the public client's extra signers: a first buyer); every
    other signature kept, and checked to be valid."""
    tx = VersionedTransaction.from_bytes(raw)
    signers = required_signers(tx)
    me = keypair.pubkey()
    if me not in signers:
        raise SigningError(f"the transaction does not need a signature from {me}")
    ours = {k.pubkey(): k for k in (keypair, *others) if k.pubkey() in signers}
    message_bytes = to_bytes_versioned(tx.message)
    signatures = list(tx.signatures)
    for signer, signature in zip(signers, signatures, strict=True):
        if signer in ours or signature == Signature.default():
            continue
        if not signature.verify(signer, message_bytes):
            raise SigningError(f"the service's signature for {signer} does not verify")
    for key, pair in ours.items():
        signatures[signers.index(key)] = pair.sign_message(message_bytes)
    missing = [
        str(s) for s, sig in zip(signers, signatures, strict=True) if sig == Signature.default()
    ]
    if missing:
        raise SigningError(f"the transaction also needs signatures from {', '.join(missing)}")
    return VersionedTransaction.populate(tx.message, signatures)


def only_ours(raw: bytes, keys: Pubkey | Iterable[Pubkey]) -> bool:
    """Whether we hold every required signer's key: only then may we re-sign it with a new
    blockhash (a signature of the service's would no longer verify)."""
    held = {keys} if isinstance(keys, Pubkey) else set(keys)
    return set(required_signers(VersionedTransaction.from_bytes(raw))) <= held


def with_blockhash(message: AnyMessage, blockhash: Hash) -> AnyMessage:
    """The same message, in its own format, under another blockhash."""
    header = message.header
    if isinstance(message, MessageV0):
        return MessageV0(
            header,
            message.account_keys,
            blockhash,
            message.instructions,
            message.address_table_lookups,
        )
    if isinstance(message, MessageV1):
        return MessageV1(
            header, message.config, blockhash, message.account_keys, message.instructions
        )
    return Message.new_with_compiled_instructions(
        header.num_required_signatures,
        header.num_readonly_signed_accounts,
        header.num_readonly_unsigned_accounts,
        message.account_keys,
        blockhash,
        message.instructions,
    )


def resign(
    raw: bytes, keypairs: Keypair | Iterable[Keypair], blockhash: Hash
) -> VersionedTransaction:
    """The same instructions under a fresh blockhash, signed by our keys alone."""
    held = {k.pubkey(): k for k in ([keypairs] if isinstance(keypairs, Keypair) else keypairs)}
    tx = VersionedTransaction.from_bytes(raw)
    signers = required_signers(tx)
    if not set(signers) <= set(held):
        raise SigningError("only a transaction whose every signer is ours can be re-signed")
    message = with_blockhash(tx.message, blockhash)
    data = to_bytes_versioned(message)
    return VersionedTransaction.populate(message, [held[s].sign_message(data) for s in signers])
