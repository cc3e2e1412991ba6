"""The ways a real RPC node or provider fails, answered on demand with the bodies they
send (agave's `custom_error.rs` codes; `notes/solana.md`), and a node that lags.

A fault is named, and given for every method (`behind`) or one (`behind@sendTransaction`),
at a rate (`rpc_faults`) or for the next N calls (`rpc_fault_next`); each one served is
counted in the stats as `refused["METHOD NAME"]`. A lagging node (`rpc_lag_slots`, per
method or `*`) answers from a view of the chain N slots old: its context slot, block
height and signature statuses are those of that slot, the accounts made since are not
there, and a `minContextSlot` above its view is refused with -32016.

  kind     name                what the caller gets
  ───────  ──────────────────  ─────────────────────────────────────────────────────────
  ERRORS   (HTTP 200 and the JSON-RPC `error` a node sends; nothing run) behind and
           unhealthy (-32005, `data: {numSlotsBehind}`), unhealthy_no_data (-32005),
           block_cleaned_up (-32001), block_not_available (-32004), slot_skipped (-32007),
           long_term_storage_slot_skipped (-32009), block_status_not_available (-32014),
           min_context_slot (-32016), internal (-32603), blockhash_not_found,
           already_processed and insufficient_funds (-32002, the simulation as `data`),
           signature_verification (-32003)
  BROKEN   http_502, http_504  nginx's own 502 / 504 page (`text/html`, CRLF line ends)
           not_json            HTTP 200 and a CDN's browser check (HTML) for the JSON
           truncated           HTTP 200 and JSON cut short
  SHAPES   wrong_shape,        a `result` of the wrong shape, numbers out of range, null
           huge_number,
           null_result
  LIES     failed_processed    getSignatureStatuses: every signature the sandbox saw sent
                               (landed, queued or dropped) failed, `InstructionError [0,
                               Custom 1]`, at `processed` in the view's slot (a node on a
                               minority fork); unknown ones stay null
           no_history          getSignatureStatuses and getTransaction: null for what
                               landed more than HISTORY_SLOTS (150) before the view (a
                               node without history), whatever searchTransactionHistory
           fork                getSignatureStatuses and getTransaction: null for what
                               landed in the view's own slot (another fork at processed)
           stale               the call is answered from a view STALE_SLOTS (100) slots
                               behind (slots that go backward between two nodes): context
                               slot, block height, epoch info, statuses, accounts made
                               since absent, `minContextSlot` above it -32016
           wrong_id            the right answer with another request's `id` (an int id
                               + 1000003, "x" + a string id)
           swapped             the last answer served to another request, verbatim (its
                               id too); as wrong_id before any was served
  OUTAGES  blackhole           the connection is taken; nothing is run or answered until
                               the caller gives up (at most 600 s, then 504)
           lost_answer         the call runs (a send lands); its answer never comes
           rate_limited        HTTP 429, `Retry-After: 45`, a JSON-RPC error of code 429

The ERRORS, BROKEN, SHAPES and rate_limited (REFUSALS) answer a whole HTTP request, a
batch too, at once, none of it run; blackhole holds a whole request, none of it run;
lost_answer runs it all and holds it. The LIES change their own call's answer after it
ran (in a batch, call by call: `rpc_lies`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.responses import JSONResponse, Response

from launchops.sandbox import outages

JSON = dict[str, Any]


def _error(code: int, message: str, data: Any = None, *, with_data: bool = True) -> JSON:
    body: JSON = {"code": code, "message": message}
    if with_data:
        body["data"] = data
    return body


def _simulation(err: Any, logs: list[str] | None = None) -> JSON:
    """The simulation result a -32002 carries as its data, as a node sends it."""
    return {
        "accounts": None,
        "err": err,
        "innerInstructions": None,
        "loadedAccountsDataSize": 0,
        "logs": logs or [],
        "replacementBlockhash": None,
        "returnData": None,
        "unitsConsumed": 0,
    }


# name -> the JSON-RPC error for a chain at `slot`
ERRORS: dict[str, Callable[[int], JSON]] = {
    "behind": lambda slot: _error(-32005, "Node is behind by 153 slots", {"numSlotsBehind": 153}),
    "unhealthy": lambda slot: _error(-32005, "Node is unhealthy", {"numSlotsBehind": None}),
    "unhealthy_no_data": lambda slot: _error(-32005, "Node is unhealthy", with_data=False),
    "block_cleaned_up": lambda slot: _error(
        -32001,
        f"Block {max(slot - 5000, 0)} cleaned up, does not exist on node. First available "
        f"block: {max(slot - 4000, 0)}",
        with_data=False,
    ),
    "block_not_available": lambda slot: _error(
        -32004, f"Block not available for slot {slot}", with_data=False
    ),
    "slot_skipped": lambda slot: _error(
        -32007,
        f"Slot {slot} was skipped, or missing due to ledger jump to recent snapshot",
        with_data=False,
    ),
    "long_term_storage_slot_skipped": lambda slot: _error(
        -32009, f"Slot {slot} was skipped, or missing in long-term storage", with_data=False
    ),
    "block_status_not_available": lambda slot: _error(
        -32014, f"Block status not yet available for slot {slot}", with_data=False
    ),
    "min_context_slot": lambda slot: _error(
        -32016, "Minimum context slot has not been reached", {"contextSlot": max(slot - 10, 0)}
    ),
    "internal": lambda slot: _error(-32603, "Internal error", with_data=False),
    "blockhash_not_found": lambda slot: _error(
        -32002,
        "Transaction simulation failed: Blockhash not found",
        _simulation("BlockhashNotFound"),
    ),
    "already_processed": lambda slot: _error(
        -32002,
        "Transaction simulation failed: This transaction has already been processed",
        _simulation("AlreadyProcessed"),
    ),
    "insufficient_funds": lambda slot: _error(
        -32002,
        "Transaction simulation failed: Attempt to debit an account but found no record of a "
        "prior credit.",
        _simulation("AccountNotFound"),
    ),
    "signature_verification": lambda slot: _error(
        -32003, "Transaction signature verification failure", with_data=False
    ),
}
# name -> an answer that is not a JSON-RPC one at all (an HTTP status, a broken body)
BROKEN: dict[str, Callable[[], Response]] = {
    "http_502": lambda: outages.nginx_response(502),
    "http_504": lambda: outages.nginx_response(504),
    "not_json": lambda: outages.cdn_challenge_response("rpc", "8f3b2c1d9e0a4b7c"),
    "truncated": lambda: Response(
        '{"jsonrpc":"2.0","result":{"context":{"slot":', media_type="application/json"
    ),
}
# name -> a JSON-RPC answer of the wrong shape
SHAPES: dict[str, Callable[[int], Any]] = {
    "wrong_shape": lambda slot: {"context": {"slot": "soon"}, "value": {"unexpected": True}},
    "huge_number": lambda slot: {"context": {"slot": 2**70}, "value": 2**70},
    "null_result": lambda slot: None,
}
# name -> what a node that answers wrongly does to a call's answer, after running it
LIES = frozenset({"failed_processed", "no_history", "fork", "stale", "wrong_id", "swapped"})
# name -> an answer that does not come (held), or comes only as a refusal to wait for
OUTAGES = frozenset({"blackhole", "lost_answer", "rate_limited"})
NAMES = frozenset(ERRORS) | frozenset(BROKEN) | frozenset(SHAPES) | LIES | OUTAGES
# What a lagging or overloaded provider answers at once and a client asks again, but never
# a refusal of a transaction: every launch must still land through these. Not the LIES
# (nothing says they are wrong) nor the OUTAGES (they cost a timeout or a long wait).
TRANSIENT_NAMES = NAMES - {"insufficient_funds", "signature_verification"} - LIES - OUTAGES
# The faults that answer a whole HTTP request at once, none of its calls run.
REFUSALS = frozenset(ERRORS) | frozenset(BROKEN) | frozenset(SHAPES) | {"rate_limited"}
RETRY_AFTER_SECONDS = 45


def check_names(faults: dict[str, Any]) -> dict[str, Any]:
    """`name` or `name@method` keys, each name known (pydantic validator)."""
    for key in faults:
        name = key.partition("@")[0]
        if name not in NAMES:
            known = ", ".join(sorted(NAMES))
            raise ValueError(f"unknown RPC fault {name!r}; known: {known}")
    return faults


def answer(name: str, request_id: Any, slot: int) -> Response:
    """The HTTP answer of refusal `name` (one of REFUSALS) to the call `request_id` on a
    chain at `slot`."""
    if name in BROKEN:
        return BROKEN[name]()
    if name == "rate_limited":
        error = _error(429, "Too many requests for a specific RPC call", with_data=False)
        return JSONResponse(
            {"jsonrpc": "2.0", "error": error, "id": request_id},
            status_code=429,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    if name in SHAPES:
        body = json.dumps({"jsonrpc": "2.0", "result": SHAPES[name](slot), "id": request_id})
        return Response(body, media_type="application/json")
    error = ERRORS[name](slot)
    return JSONResponse({"jsonrpc": "2.0", "error": error, "id": request_id})


def pick(
    method: str, rates: dict[str, float], next_n: dict[str, int], draw: Callable[[], float]
) -> tuple[str | None, dict[str, int]]:
    """The fault to answer `method` with, if any, and `next_n` less the one used."""
    for key, remaining in next_n.items():
        name, _, only = key.partition("@")
        if remaining > 0 and only in ("", method):
            left = {**next_n, key: remaining - 1}
            return name, {k: v for k, v in left.items() if v > 0}
    for key, rate in rates.items():
        name, _, only = key.partition("@")
        if only in ("", method) and rate > 0 and draw() < rate:
            return name, next_n
    return None, next_n


__all__ = [
    "LIES",
    "NAMES",
    "OUTAGES",
    "REFUSALS",
    "TRANSIENT_NAMES",
    "answer",
    "check_names",
    "pick",
]
