"""The RPC reads that explorers, wallets and scripts (solana-py, web3.js) use on a launched
token, answered from the sandbox's chain in a node's shapes: a mint's supply and largest
holders, an owner's token accounts, an address's signatures, and mints and token accounts
as `jsonParsed` (SPL Token and Token-2022, with the extensions the sandbox makes).
`rpc.py` reads the parameters; these functions read the chain.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import base58
from solders.account import Account
from solders.pubkey import Pubkey
from solders.signature import Signature

from launchops.api import programs as p
from launchops.errors import RpcError
from launchops.sandbox.chain import Chain

TOKEN_PROGRAMS = {p.TOKEN_PROGRAM: "spl-token", p.TOKEN_2022_PROGRAM: "spl-token-2022"}
MAX_LARGEST = 20
MAX_SIGNATURES_LIMIT = 1000
_TOKEN_ACCOUNT_SIZE = 165
_ACCOUNT_TYPE_MINT, _ACCOUNT_TYPE_ACCOUNT = 1, 2
_EXTENSION_NAMES = {7: "immutableOwner", 18: "metadataPointer", 19: "tokenMetadata"}
_STATES = {0: "uninitialized", 1: "initialized", 2: "frozen"}


def ui_amount(amount: int, decimals: int) -> dict[str, Any]:
    """A token amount as a node writes one: base units as text, and for people."""
    whole, fraction = divmod(amount, 10**decimals) if decimals else (amount, 0)
    digits = f"{fraction:0{decimals}d}".rstrip("0") if decimals else ""
    return {
        "amount": str(amount),
        "decimals": decimals,
        "uiAmount": amount / 10**decimals,
        "uiAmountString": f"{whole}.{digits}" if digits else str(whole),
    }


# ── accounts, in each encoding ──────────────────────────────────────────────


def account_json(account: Account | None, encoding: str) -> dict[str, Any] | None:
    """An account as getAccountInfo answers it; `jsonParsed` parses mints and token
    accounts and, as a node does, falls back to base64 for anything else."""
    if account is None:
        return None
    data = bytes(account.data)
    if encoding == "base58":
        encoded: Any = [base58.b58encode(data).decode(), "base58"]
    elif encoding == "jsonParsed" and (parsed := parse_token(account)) is not None:
        encoded = parsed
    elif encoding in ("base64", "jsonParsed"):
        encoded = [base64.b64encode(data).decode(), "base64"]
    else:
        raise RpcError(-32602, f"Invalid params: unsupported encoding {encoding}")
    return {
        "data": encoded,
        "executable": account.executable,
        "lamports": account.lamports,
        "owner": str(account.owner),
        "rentEpoch": 18446744073709551615,
        "space": len(data),
    }


def parse_token(account: Account) -> dict[str, Any] | None:
    """`{program, parsed: {type, info}, space}` of a mint or token account, else None."""
    program = TOKEN_PROGRAMS.get(account.owner)
    data = bytes(account.data)
    if program is None:
        return None
    kind = _account_type(data)
    if kind == _ACCOUNT_TYPE_MINT:
        parsed = {"type": "mint", "info": _mint_info(data)}
    elif kind == _ACCOUNT_TYPE_ACCOUNT:
        parsed = {"type": "account", "info": _token_account_info(data, decimals=None)}
    else:
        return None
    if account.owner == p.TOKEN_2022_PROGRAM and len(data) > _TOKEN_ACCOUNT_SIZE:
        parsed["info"]["extensions"] = _extensions(data)
    return {"program": program, "parsed": parsed, "space": len(data)}


def _account_type(data: bytes) -> int | None:
    if len(data) == p.MINT_BASE_SIZE:
        return _ACCOUNT_TYPE_MINT
    if len(data) == _TOKEN_ACCOUNT_SIZE:
        return _ACCOUNT_TYPE_ACCOUNT
    if len(data) > _TOKEN_ACCOUNT_SIZE:
        return data[p.ACCOUNT_TYPE_OFFSET]
    return None


def _key_or_none(key: Pubkey | None) -> str | None:
    return str(key) if key is not None else None


def _mint_info(data: bytes) -> dict[str, Any]:
    mint = p.read_mint(data)
    return {
        "decimals": mint.decimals,
        "freezeAuthority": _key_or_none(mint.freeze_authority),
        "isInitialized": bool(data[45]),
        "mintAuthority": _key_or_none(mint.mint_authority),
        "supply": str(mint.supply),
    }


def _token_account_info(data: bytes, decimals: int | None) -> dict[str, Any]:
    token = p.read_token_account(data)
    native = int.from_bytes(data[109:113], "little") == 1
    return {
        "isNative": native,
        "mint": str(token.mint),
        "owner": str(token.owner),
        "state": _STATES.get(data[108], "uninitialized"),
        "tokenAmount": ui_amount(token.amount, decimals if decimals is not None else 0),
    }


def _extensions(data: bytes) -> list[dict[str, Any]]:
    """Token-2022 extensions (type-length-value after the account type byte), named as a
    node names them; those the sandbox never makes are `unparseableExtension`."""
    found: list[dict[str, Any]] = []
    offset = p.ACCOUNT_TYPE_OFFSET + 1
    while offset + 4 <= len(data):
        kind, length = struct.unpack_from("<HH", data, offset)
        if kind == 0:
            break
        value = data[offset + 4 : offset + 4 + length]
        offset += 4 + length
        name = _EXTENSION_NAMES.get(kind, "unparseableExtension")
        entry: dict[str, Any] = {"extension": name}
        if kind == 18:
            entry["state"] = {
                "authority": _nonzero(value[:32]),
                "metadataAddress": _nonzero(value[32:64]),
            }
        elif kind == 19:
            entry["state"] = _metadata_state(data)
        found.append(entry)
    return found


def _nonzero(raw: bytes) -> str | None:
    return None if raw == bytes(32) else str(Pubkey.from_bytes(raw))


def _metadata_state(data: bytes) -> dict[str, Any]:
    mint = p.read_mint(data)
    return {
        "additionalMetadata": [],
        "mint": None,  # filled by the caller that knows the address; a node writes it
        "name": mint.name,
        "symbol": mint.symbol,
        "updateAuthority": _key_or_none(mint.update_authority),
        "uri": mint.uri,
    }


# ── token reads ─────────────────────────────────────────────────────────────


def _mint(chain: Chain, key: Pubkey) -> Account:
    account = chain.account(key)
    if account is None or account.owner not in TOKEN_PROGRAMS:
        raise RpcError(-32602, "Invalid param: not a Token mint")
    if _account_type(bytes(account.data)) != _ACCOUNT_TYPE_MINT:
        raise RpcError(-32602, "Invalid param: not a Token mint")
    return account


def token_supply(chain: Chain, mint: Pubkey) -> dict[str, Any]:
    state = p.read_mint(bytes(_mint(chain, mint).data))
    return ui_amount(state.supply, state.decimals)


def _holdings(chain: Chain, program: Pubkey) -> list[tuple[Pubkey, Account]]:
    """Every token account of a token program (mints and other accounts left out)."""
    return [
        (key, account)
        for key, account in chain.svm.get_program_accounts(program)
        if _account_type(bytes(account.data)) == _ACCOUNT_TYPE_ACCOUNT
    ]


def largest_accounts(chain: Chain, mint: Pubkey) -> list[dict[str, Any]]:
    """The 20 largest token accounts of a mint, largest first."""
    account = _mint(chain, mint)
    decimals = p.read_mint(bytes(account.data)).decimals
    holders = [
        (p.read_token_account(bytes(a.data)).amount, key)
        for key, a in _holdings(chain, account.owner)
        if bytes(a.data[:32]) == bytes(mint)
    ]
    holders.sort(key=lambda pair: (-pair[0], str(pair[1])))
    return [
        {"address": str(key), **ui_amount(amount, decimals)}
        for amount, key in holders[:MAX_LARGEST]
    ]


def accounts_by_owner(
    chain: Chain, owner: Pubkey, mint: Pubkey | None, program: Pubkey | None, encoding: str
) -> list[dict[str, Any]]:
    """An owner's token accounts, of one mint or of one token program."""
    if mint is not None:
        program = _mint(chain, mint).owner
    if program not in TOKEN_PROGRAMS:
        raise RpcError(-32602, "Invalid param: unrecognized Token program id")
    found = []
    for key, account in _holdings(chain, program):
        token = p.read_token_account(bytes(account.data))
        if token.owner == owner and (mint is None or token.mint == mint):
            found.append(
                {"pubkey": str(key), "account": account_value(chain, key, account, encoding)}
            )
    return found


def _decimals(chain: Chain, mint: Pubkey) -> int:
    account = chain.account(mint)
    return account.data[44] if account is not None and len(account.data) > 44 else 0


def account_value(
    chain: Chain, key: Pubkey, account: Account | None, encoding: str
) -> dict[str, Any] | None:
    """An account as getAccountInfo answers it; `jsonParsed` token accounts carry their
    mint's decimals and a mint's metadata its own address, as a node's parser fills in."""
    shown = account_json(account, encoding)
    if shown is None or not isinstance(shown["data"], dict):
        return shown
    parsed = shown["data"]["parsed"]
    if parsed["type"] == "account":
        token = p.read_token_account(bytes(account.data))  # type: ignore[union-attr]
        parsed["info"]["tokenAmount"] = ui_amount(token.amount, _decimals(chain, token.mint))
    for extension in parsed["info"].get("extensions", []):
        if extension["extension"] == "tokenMetadata":
            extension["state"]["mint"] = str(key)
    return shown


# ── an address's signatures ─────────────────────────────────────────────────


def signatures_for(
    chain: Chain,
    address: Pubkey,
    limit: int,
    before: Signature | None,
    until: Signature | None,
) -> list[dict[str, Any]]:
    """Signatures of landed transactions that loaded `address`, newest first."""
    if not 1 <= limit <= MAX_SIGNATURES_LIMIT:
        raise RpcError(-32602, f"Invalid limit; max {MAX_SIGNATURES_LIMIT}")
    newest_first = list(reversed(chain.signatures_of(address)))
    if before is not None and before in newest_first:
        newest_first = newest_first[newest_first.index(before) + 1 :]
    if until is not None and until in newest_first:
        newest_first = newest_first[: newest_first.index(until)]
    shown = []
    for signature in newest_first[:limit]:
        landed = chain.landed[signature]
        status = chain.status(signature) or {}
        shown.append(
            {
                "signature": str(signature),
                "slot": landed.slot,
                "err": landed.err,
                "memo": chain.memo_of(signature),
                "blockTime": landed.block_time,
                "confirmationStatus": status.get("confirmationStatus"),
            }
        )
    return shown


__all__ = [
    "TOKEN_PROGRAMS",
    "account_json",
    "account_value",
    "accounts_by_owner",
    "largest_accounts",
    "parse_token",
    "signatures_for",
    "token_supply",
    "ui_amount",
]
