"""The answers of a node that answers wrongly without saying so (the LIES of
`rpc_faults`): each takes one call's answer, after the sandbox ran the call, and makes it
what such a node sends.

A lie changes only the methods it is about (failed_processed: getSignatureStatuses;
no_history and fork: getSignatureStatuses and getTransaction, and no_history's
minimumLedgerSlot says where its history starts); any other method is
answered truly. `stale` changes no answer here: the call is run at a view STALE_SLOTS
behind the chain (`RpcMethods.call(behind=...)`), which makes every part of it agree.
"""

from __future__ import annotations

import copy
from typing import Any

from solders.signature import Signature

from launchops.sandbox.chain import Chain

JSON = dict[str, Any]

STALE_SLOTS = 100  # how far behind the chain a `stale` node answers from
HISTORY_SLOTS = 150  # what a `no_history` node still knows, before its view's slot
WRONG_ID_OFFSET = 1000003
FAILED = {"InstructionError": [0, {"Custom": 1}]}
STATUSES = "getSignatureStatuses"


def behind(name: str | None) -> int:
    """How many slots behind the chain a call under fault `name` is answered from."""
    return STALE_SLOTS if name == "stale" else 0


def other_id(request_id: Any) -> Any:
    """Another request's id: an int one moved by WRONG_ID_OFFSET, a string one prefixed."""
    if isinstance(request_id, str):
        return "x" + request_id
    if isinstance(request_id, int) and not isinstance(request_id, bool):
        return request_id + WRONG_ID_OFFSET
    return WRONG_ID_OFFSET  # null (or odd) ids: an int nobody asked with


def tell(name: str, chain: Chain, call: JSON, answer: JSON, view: int, last: JSON | None) -> JSON:
    """The answer body a node under lie `name` sends for `call`, whose true answer is
    `answer` at slot `view`; `last` is the last body served to another request."""
    if name == "wrong_id" or (name == "swapped" and last is None):
        return {**answer, "id": other_id(answer.get("id"))}
    if name == "swapped":
        assert last is not None
        return last
    result = answer.get("result")
    if result is None:  # an error, or nothing to lie about
        return answer
    method = call.get("method")
    if method == STATUSES and name in ("failed_processed", "no_history", "fork"):
        value = _statuses(name, chain, call, result["value"], view)
        return {**answer, "result": {**result, "value": value}}
    if method == "minimumLedgerSlot" and name == "no_history":
        return {**answer, "result": max(view - HISTORY_SLOTS, 0)}  # its ledger's start
    if method == "getTransaction" and name in ("no_history", "fork"):
        slot = result.get("slot") if isinstance(result, dict) else None
        if isinstance(slot, int) and _forgotten(name, slot, view):
            return {**answer, "result": None}
    return answer


def _statuses(name: str, chain: Chain, call: JSON, value: list[Any], view: int) -> list[Any]:
    if name == "failed_processed":
        signatures = call["params"][0]
        return [
            _failed(view) if _seen(chain, signature) else status
            for signature, status in zip(signatures, value, strict=True)
        ]
    return [
        None if status is not None and _forgotten(name, status["slot"], view) else status
        for status in value
    ]


def _forgotten(name: str, slot: int, view: int) -> bool:
    """Whether a node under `name` answers null for what landed at `slot`, seen at `view`."""
    if name == "no_history":
        return view - slot > HISTORY_SLOTS
    return slot == view  # fork: the view's own slot is on the other fork


def _seen(chain: Chain, text: str) -> bool:
    """Whether the sandbox saw this signature sent: landed, queued, or dropped."""
    signature = Signature.from_string(text)
    return (
        signature in chain.landed or signature in chain.pending_sigs or signature in chain.dropped
    )


def _failed(view: int) -> JSON:
    return {
        "slot": view,
        "confirmations": 0,
        "err": copy.deepcopy(FAILED),
        "status": {"Err": copy.deepcopy(FAILED)},
        "confirmationStatus": "processed",
    }


__all__ = ["HISTORY_SLOTS", "STALE_SLOTS", "behind", "other_id", "tell"]
