"""What an RPC node answers, mapped once onto launchops' error tree (as httpx maps
transport errors in one module).

    answer                                              error                  transient
    --------------------------------------------------  ---------------------  ---------
    no answer: connect, reset, timeout                  RpcUnavailable         yes
    HTTP 429 (Retry-After honoured), 408, 5xx           RpcUnavailable         yes
    HTTP 413 and any other non-200                      RpcRefused             no
    a body that is not JSON-RPC (not JSON, truncated,   RpcUnavailable         yes
      not `jsonrpc: "2.0"`, an error without code or
      message, a result of the wrong shape, a number
      out of range), or an answer to another request
      (its `id` is not the request's)
    -32005 node unhealthy / behind by N slots           RpcUnavailable         yes
    -32004 block not available, -32007 and -32009        RpcUnavailable         yes
      slot skipped, -32014 block status not yet
      available, -32016 minimum context slot not
      reached, -32603 internal error, -32001 block
      cleaned up
    -32002 preflight failure: its `data.err` read       TransactionRejected    no
      (BlockhashNotFound: the expiry path;
      AlreadyProcessed: sent; insufficient funds:
      which account, how many lamports)
    -32003 signature verification, -32006 precompile    TransactionRejected    no
      (to a send or a simulation; to any other call,
      a malformed answer)
    -32600, -32601, -32602, -32015 and any other code   RpcRefused             no

A lagging node behind a load balancer answers HTTP 200 with an `error` object as often as
with a status: both are here, and solders never parses an error body (a shape it does
not expect makes it panic, which `except Exception` does not catch).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from launchops.errors import RpcRefused, RpcUnavailable, TransactionRejected

# JSON-RPC codes a node answers when asking again (here or at another node) may succeed.
TRANSIENT_CODES = {
    -32001: "block cleaned up",
    -32004: "block not available",
    -32005: "node unhealthy or behind",
    -32007: "slot skipped",
    -32009: "slot skipped in long-term storage",
    -32014: "block status not yet available",
    -32016: "minimum context slot not reached",
    -32603: "internal error",
}
PREFLIGHT_FAILURE = -32002
TRANSACTION_REFUSALS = {-32003, -32006}
TRANSIENT_STATUSES = {408, 429, 500, 502, 503, 504}
SENDING = frozenset({"sendTransaction", "simulateTransaction"})  # what a node may refuse
MAX_RETRY_AFTER = 30.0
_LAMPORTS = re.compile(r"insufficient lamports (\d+), need (\d+)")


@dataclass(frozen=True)
class Answer:
    """A JSON-RPC result, with the slot the node answered at when it says (`context`)."""

    value: Any
    context_slot: int | None


def read_answer(
    url: str, response: httpx.Response, request_id: Any = None, method: str = ""
) -> Answer:
    """The result of one JSON-RPC call, or the error it maps to (see the table above); with
    `request_id`, an answer that does not carry that id is malformed (another request's);
    with `method`, a refusal of a transaction answering any other call than a send or a
    simulation is malformed too (no node refuses a read so)."""
    if response.status_code != 200:
        raise _status_error(url, response)
    try:
        body = json.loads(response.content)
    except ValueError:
        raise malformed(url, "its body is not JSON") from None
    if not isinstance(body, dict) or body.get("jsonrpc") != "2.0":
        raise malformed(url, "its body is not a JSON-RPC 2.0 answer")
    if request_id is not None and body.get("id") != request_id:
        shown = str(body.get("id"))[:24]
        raise malformed(url, f"it answers another request: id {shown}, not {request_id}")
    if "error" in body and body["error"] is not None:
        error = error_of(url, body["error"])
        if isinstance(error, TransactionRejected) and method and method not in SENDING:
            raise malformed(url, f"a transaction's refusal ({error.code}) answering {method}")
        raise error
    if "result" not in body:
        raise malformed(url, "it has neither result nor error")
    return unwrap(url, body["result"])


def unwrap(url: str, result: Any) -> Answer:
    """`{context: {slot}, value}` into its value and slot; any other result as it is."""
    if isinstance(result, dict) and "context" in result:
        context = result.get("context")
        slot = context.get("slot") if isinstance(context, dict) else None
        if not _is_slot(slot) or "value" not in result:
            raise malformed(url, "its context is not {slot, value}")
        return Answer(result["value"], slot)
    return Answer(result, None)


def error_of(url: str, error: Any) -> Exception:
    """A JSON-RPC `error` object as launchops' error."""
    if not isinstance(error, dict):
        return malformed(url, "its error is not an object")
    code, message, data = error.get("code"), error.get("message"), error.get("data")
    if isinstance(code, bool) or not isinstance(code, int) or not isinstance(message, str):
        return malformed(url, "its error has no code or message")
    message = " ".join(message.split())[:300] or "(no message)"  # one line, whatever came
    where = f"RPC {url}: {message} ({code})"
    if code in TRANSIENT_CODES:
        return RpcUnavailable(where, code=code)
    if code == PREFLIGHT_FAILURE:
        err = data.get("err") if isinstance(data, dict) else None
        logs = data.get("logs") if isinstance(data, dict) else None
        short = [line for line in logs or [] if isinstance(line, str) and _LAMPORTS.search(line)]
        return TransactionRejected(message + (f" ({short[0]})" if short else ""), err, code=code)
    if code in TRANSACTION_REFUSALS:
        return TransactionRejected(message, None, code=code)
    if code == 429:  # some providers answer a rate limit with HTTP 200 and this
        return RpcUnavailable(where, code=code)
    return RpcRefused(where, code=code)


def describe_err(err: Any) -> str:
    """A transaction error as a node sends it (`"AccountNotFound"`, `{"InstructionError":
    [1, {"Custom": 6001}]}`), in a few words."""
    if isinstance(err, dict) and len(err) == 1:
        [(name, detail)] = err.items()
        if name == "InstructionError" and isinstance(detail, list) and len(detail) == 2:
            index, inner = detail
            if isinstance(inner, dict) and len(inner) == 1:
                [(what, value)] = inner.items()
                inner = f"{what} {value}"
            return f"instruction {index}: {inner}"
        return f"{name} {detail}"
    return str(err)


def malformed(url: str, why: str) -> RpcUnavailable:
    """The error for an answer that is not the JSON-RPC expected (`why` says how): an
    `RpcUnavailable`, transient, for the caller to raise."""
    return RpcUnavailable(f"RPC {url}: a malformed answer ({why})")


def _status_error(url: str, response: httpx.Response) -> Exception:
    status = response.status_code
    if status in TRANSIENT_STATUSES or status >= 500:
        header = response.headers.get("retry-after") if status == 429 else None
        retry_after = _retry_after(header)
        asked = f" (Retry-After {' '.join(header.split())[:20]} s)" if retry_after else ""
        return RpcUnavailable(
            f"RPC {url}: HTTP {status}{asked}", code=status, retry_after=retry_after
        )
    return RpcRefused(f"RPC {url}: HTTP {status}", code=status)


def _retry_after(value: str | None) -> float | None:
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    if seconds is None or not 0 <= seconds < float("inf"):
        return None
    return min(seconds, MAX_RETRY_AFTER)


def _is_slot(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def explain_rejection(exc: TransactionRejected, keys: Sequence[str]) -> TransactionRejected:
    """A preflight refusal in words a person acts on: which account, how many lamports.
    `keys` are the transaction's account keys (the first pays the fees)."""
    err, payer = exc.err, keys[0] if keys else "the fee payer"
    why: str | None = None
    if err in ("AccountNotFound", "InsufficientFundsForFee"):
        why = (
            f"the key {payer} has no SOL on this network, or too little for the fees: "
            "fund it (a launch pays its accounts' rent and fees, about 0.05 SOL), then run "
            "the same command again"
        )
    elif isinstance(err, dict) and isinstance(err.get("InsufficientFundsForRent"), dict):
        index = err["InsufficientFundsForRent"].get("account_index")
        account = keys[index] if isinstance(index, int) and 0 <= index < len(keys) else "?"
        why = f"account {account} would be left with less than its rent-exempt minimum"
    elif (found := _LAMPORTS.search(str(exc))) is not None:
        have, need = found.groups()
        why = f"the key {payer} has {have} lamports and needs {need}: fund it, then run again"
    if why is None:
        return exc
    return TransactionRejected(f"{exc}: {why}", err, code=exc.code)


__all__ = [
    "TRANSIENT_CODES",
    "Answer",
    "describe_err",
    "error_of",
    "explain_rejection",
    "malformed",
    "read_answer",
    "unwrap",
]
