"""Solana JSON-RPC over the sandbox's chain, with answers and errors shaped as a node's.

solders parses these answers strictly (a malformed error makes it panic), so every shape
here follows the node's: `{context: {slot, apiVersion}, value}` where the node wraps,
`-32002` preflight failures with a simulation result as data, `-32003` for signatures.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from typing import Any

import base58
from solders.hash import Hash
from solders.message import Message, MessageV0
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.api.programs import GENESIS_HASHES
from launchops.sandbox import reads
from launchops.sandbox.chain import EPOCH_SLOTS, Chain, RpcError

API_VERSION = "2.2.0"
SOLANA_CORE = "2.2.0"
FEATURE_SET = 3294202862
MAX_SIGNATURES = 256
# Methods that observe the chain's progress: at --slot-ms 0 each call is one slot.
PROGRESS_METHODS = frozenset(
    {"getSignatureStatuses", "getTransaction", "getBlockHeight", "getSlot", "getEpochInfo"}
)


class RpcMethods:
    """One handler per supported method; `call()` dispatches and shapes errors."""

    def __init__(self, chain: Chain, identity: str = "") -> None:
        self.chain = chain
        self.identity = identity  # getIdentity: which sandbox's chain this is
        self.view = 0  # the slot this call is answered at (behind the chain's when lagging)
        self.last_send = -1e9  # when the last sendTransaction came (time.monotonic)
        self.handlers: dict[str, Callable[[list[Any]], Any]] = {
            "getLatestBlockhash": self.get_latest_blockhash,
            "getBlockHeight": lambda p: self.view,  # one block a slot here
            "getSlot": lambda p: self.view,
            "sendTransaction": self.send_transaction,
            "simulateTransaction": self.simulate_transaction,
            "getSignatureStatuses": self.get_signature_statuses,
            "getTransaction": self.get_transaction,
            "getAccountInfo": self.get_account_info,
            "getMultipleAccounts": self.get_multiple_accounts,
            "getBalance": self.get_balance,
            "getTokenAccountBalance": self.get_token_account_balance,
            "getMinimumBalanceForRentExemption": lambda p: self.chain.rent_exempt(_int(p, 0)),
            "isBlockhashValid": self.is_blockhash_valid,
            "requestAirdrop": self.request_airdrop,
            "getVersion": lambda p: {"solana-core": SOLANA_CORE, "feature-set": FEATURE_SET},
            "getHealth": lambda p: "ok",
            "minimumLedgerSlot": lambda p: 0,  # every slot is kept here (but see no_history)
            "getIdentity": lambda p: {"identity": self.identity},
            "getGenesisHash": lambda p: GENESIS_HASHES[self.chain.faults.cluster],
            "getEpochInfo": self.get_epoch_info,
            "getFeeForMessage": lambda p: self._ctx(5000),
            "getRecentPrioritizationFees": lambda p: [],
            # The reads tools use on a launched token (reads.py).
            "getTokenSupply": lambda p: self._ctx(reads.token_supply(self.chain, _key(p, 0))),
            "getTokenLargestAccounts": lambda p: self._ctx(
                reads.largest_accounts(self.chain, _key(p, 0))
            ),
            "getTokenAccountsByOwner": self.get_token_accounts_by_owner,
            "getSignaturesForAddress": self.get_signatures_for_address,
        }

    def call(self, method: str, params: Any, behind: int = 0) -> Any:
        """Run `method`, answered from a view of the chain `behind` slots old (or as the
        lag faults set, whichever is older); RpcError as a node shapes it."""
        handler = self.handlers.get(method)
        if handler is None:
            raise RpcError(-32601, "Method not found")
        if params is None:
            params = []
        if not isinstance(params, list):
            raise RpcError(-32602, "Invalid params: expected an array")
        self.view = self.chain.slot - max(self.lag(method), min(behind, self.chain.slot))
        wanted = _config(params).get("minContextSlot")
        if isinstance(wanted, int) and wanted > self.view:
            raise RpcError(
                -32016, "Minimum context slot has not been reached", {"contextSlot": self.view}
            )
        try:
            return handler(params)
        except RpcError:
            raise
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            raise RpcError(-32602, f"Invalid params: {exc}") from None
        except Exception as exc:  # a node answers -32603, it does not drop the connection
            raise RpcError(-32603, f"Internal error: {type(exc).__name__}") from None

    def lag(self, method: str) -> int:
        """How many slots behind the node answering `method` is (the rpc_lag_* faults)."""
        faults = self.chain.faults
        lags = getattr(faults, "rpc_lag_slots", None) or {}
        slots = lags.get(method, lags.get("*", 0) if method != "sendTransaction" else 0)
        window = getattr(faults, "rpc_lag_seconds", 0.0)
        if not slots or (window and time.monotonic() - self.last_send > window):
            return 0
        return min(slots, self.chain.slot)

    def _ctx(self, value: Any) -> dict[str, Any]:
        return {"context": {"slot": self.view, "apiVersion": API_VERSION}, "value": value}

    # ── blockhashes and transactions ────────────────────────────────────────

    def get_latest_blockhash(self, params: list[Any]) -> Any:
        blockhash, last_valid = self.chain.latest_blockhash()
        return self._ctx({"blockhash": str(blockhash), "lastValidBlockHeight": last_valid})

    def is_blockhash_valid(self, params: list[Any]) -> Any:
        # As the node's view sees it: a lagging node knows no blockhash made after it.
        blockhash = Hash.from_string(_str(params, 0))
        return self._ctx(self.chain.blockhash_valid(blockhash, height=self.view))

    def send_transaction(self, params: list[Any]) -> str:
        config = _config(params)
        raw = decode_tx(_str(params, 0), config.get("encoding", "base58"))
        skip = bool(config.get("skipPreflight", False))
        self.last_send = time.monotonic()
        return str(self.chain.send(raw, skip_preflight=skip))

    def simulate_transaction(self, params: list[Any]) -> Any:
        config = _config(params)
        raw = decode_tx(_str(params, 0), config.get("encoding", "base58"))
        wanted = config.get("accounts")
        addresses = None
        if isinstance(wanted, dict) and isinstance(wanted.get("addresses"), list):
            addresses = [Pubkey.from_string(str(a)) for a in wanted["addresses"]]
        answer = self.chain.simulate(raw, addresses)
        if answer["accounts"] is not None:
            encoding = str(wanted.get("encoding", "base64")) if isinstance(wanted, dict) else ""
            answer["accounts"] = [reads.account_json(a, encoding) for a in answer["accounts"]]
        return self._ctx(answer)

    def get_signature_statuses(self, params: list[Any]) -> Any:
        signatures = params[0] if params else None
        if not isinstance(signatures, list):
            raise RpcError(-32602, "Invalid params: expected an array of signatures")
        if len(signatures) > MAX_SIGNATURES:
            raise RpcError(-32602, f"Too many inputs provided; max {MAX_SIGNATURES}")
        return self._ctx([self.chain.status(_signature(s), at=self.view) for s in signatures])

    def get_transaction(self, params: list[Any]) -> Any:
        landed = self.chain.landed.get(_signature(_str(params, 0)))
        if landed is None or not landed.raw or landed.slot > self.view:
            return None
        encoding = _config(params).get("encoding", "json")
        tx: Any = [base64.b64encode(landed.raw).decode(), "base64"]
        if encoding == "base58":
            tx = [base58.b58encode(landed.raw).decode(), "base58"]
        version, loaded = self._version_and_loaded(landed.raw)
        return {
            "slot": landed.slot,
            "blockTime": landed.block_time,
            "version": version,
            "transaction": tx,
            "meta": {
                "err": landed.err,
                "status": {"Ok": None} if landed.err is None else {"Err": landed.err},
                "fee": landed.fee,
                "preBalances": list(landed.pre_balances),
                "postBalances": list(landed.post_balances),
                "innerInstructions": [],
                "logMessages": landed.logs,
                "preTokenBalances": [],
                "postTokenBalances": [],
                "rewards": [],
                "loadedAddresses": loaded,
                "computeUnitsConsumed": landed.units,
            },
        }

    def _version_and_loaded(self, raw: bytes) -> tuple[Any, dict[str, list[str]]]:
        """The transaction's version as a node names it, and what its lookup tables loaded."""
        tx = VersionedTransaction.from_bytes(raw)
        message = tx.message
        if isinstance(message, Message):
            return "legacy", {"writable": [], "readonly": []}
        if not isinstance(message, MessageV0):
            return 1, {"writable": [], "readonly": []}
        loaded = [str(k) for k in self.chain.keys_of(tx)[len(message.account_keys) :]]
        writable = sum(len(lookup.writable_indexes) for lookup in message.address_table_lookups)
        return 0, {"writable": loaded[:writable], "readonly": loaded[writable:]}

    def request_airdrop(self, params: list[Any]) -> str:
        return str(self.chain.airdrop(_pubkey(_str(params, 0)), _int(params, 1)))

    # ── accounts ────────────────────────────────────────────────────────────

    def _account(self, key: Pubkey, encoding: str) -> dict[str, Any] | None:
        if self.view < self.chain.slot and self.chain.made_after(key, self.view):
            return None  # a lagging node has not seen it made
        return reads.account_value(self.chain, key, self.chain.account(key), encoding)

    def get_account_info(self, params: list[Any]) -> Any:
        encoding = _config(params).get("encoding", "base64")
        return self._ctx(self._account(_key(params, 0), encoding))

    def get_multiple_accounts(self, params: list[Any]) -> Any:
        keys = params[0] if params else None
        if not isinstance(keys, list) or len(keys) > 100:
            raise RpcError(-32602, "Invalid params: expected an array of at most 100 keys")
        encoding = _config(params).get("encoding", "base64")
        return self._ctx([self._account(_pubkey(k), encoding) for k in keys])

    def get_token_accounts_by_owner(self, params: list[Any]) -> Any:
        which = params[1] if len(params) > 1 else None
        if not isinstance(which, dict) or len(which) != 1 or not {"mint", "programId"} & set(which):
            raise RpcError(-32602, "Invalid params: expected {mint} or {programId}")
        mint = _pubkey(which["mint"]) if "mint" in which else None
        program = _pubkey(which["programId"]) if "programId" in which else None
        encoding = (params[2] if len(params) > 2 and isinstance(params[2], dict) else {}).get(
            "encoding", "base64"
        )
        found = reads.accounts_by_owner(self.chain, _key(params, 0), mint, program, encoding)
        return self._ctx(found)

    def get_signatures_for_address(self, params: list[Any]) -> Any:
        config = _config(params)
        limit = config.get("limit") or reads.MAX_SIGNATURES_LIMIT
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise RpcError(-32602, "Invalid params: limit must be an integer")
        before, until = config.get("before"), config.get("until")
        return reads.signatures_for(
            self.chain,
            _key(params, 0),
            limit,
            _signature(before) if before else None,
            _signature(until) if until else None,
        )

    def get_balance(self, params: list[Any]) -> Any:
        account = self.chain.account(_pubkey(_str(params, 0)))
        return self._ctx(account.lamports if account else 0)

    def get_token_account_balance(self, params: list[Any]) -> Any:
        account = self.chain.account(_pubkey(_str(params, 0)))
        if account is None or len(account.data) < 72:
            raise RpcError(-32602, "Invalid param: not a Token account")
        mint = self.chain.account(Pubkey.from_bytes(bytes(account.data[:32])))
        decimals = mint.data[44] if mint and len(mint.data) > 44 else 0
        amount = int.from_bytes(bytes(account.data[64:72]), "little")
        return self._ctx(reads.ui_amount(amount, decimals))

    def get_epoch_info(self, params: list[Any]) -> Any:
        slot = self.view
        return {
            "absoluteSlot": slot,
            "blockHeight": slot,  # one block a slot here
            "epoch": slot // EPOCH_SLOTS,
            "slotIndex": slot % EPOCH_SLOTS,
            "slotsInEpoch": EPOCH_SLOTS,
            "transactionCount": len(self.chain.landed),
        }


def decode_tx(text: str, encoding: str) -> bytes:
    try:
        if encoding == "base64":
            return base64.b64decode(text, validate=True)
        if encoding == "base58":
            return base58.b58decode(text)
    except ValueError:
        raise RpcError(-32602, f"invalid transaction: failed to decode {encoding} string") from None
    raise RpcError(-32602, f"Invalid params: unsupported encoding {encoding}")


def _config(params: list[Any]) -> dict[str, Any]:
    last = params[-1] if params else None
    return last if isinstance(last, dict) else {}


def _str(params: list[Any], index: int) -> str:
    if len(params) <= index or not isinstance(params[index], str):
        raise RpcError(-32602, f"Invalid params: parameter {index} must be a string")
    return params[index]


def _int(params: list[Any], index: int) -> int:
    if (
        len(params) <= index
        or isinstance(params[index], bool)
        or not isinstance(params[index], int)
    ):
        raise RpcError(-32602, f"Invalid params: parameter {index} must be an integer")
    return params[index]


def _key(params: list[Any], index: int) -> Pubkey:
    return _pubkey(_str(params, index))


def _pubkey(text: Any) -> Pubkey:
    try:
        return Pubkey.from_string(text)
    except (ValueError, TypeError):
        raise RpcError(-32602, f"Invalid param: {text!r} is not a valid public key") from None


def _signature(text: Any) -> Signature:
    try:
        return Signature.from_string(text)
    except (ValueError, TypeError):
        raise RpcError(-32602, f"Invalid param: {text!r} is not a valid signature") from None
