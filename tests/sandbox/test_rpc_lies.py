"""The sandbox's nodes that answer wrongly without saying so (`rpc_faults.LIES`): a
failed status a minority fork reports, a node without history or on another fork that
does not know a transaction, a node 100 slots behind, an answer with another request's
id or another request's answer. Each one runs the call first and changes only its
answer; the next call, the fault used up, is answered truly."""

from __future__ import annotations

from solders.keypair import Keypair

import launchops.web as web
from tests.sandbox.test_rpc_faults import _call, _send_transfer, _statuses
from tests.support.pipeline import set_faults, stats

FAILED = {"InstructionError": [0, {"Custom": 1}]}


def test_wrong_id_answers_rightly_with_another_requests_id(sandbox):
    set_faults(sandbox, rpc_fault_next={"wrong_id@getVersion": 2})
    assert _call(sandbox, "getVersion").json() == {
        "jsonrpc": "2.0",
        "result": {"solana-core": "2.2.0", "feature-set": 3294202862},
        "id": 7 + 1000003,
    }
    assert _call(sandbox, "getVersion", id="abc").json()["id"] == "xabc"
    assert _call(sandbox, "getVersion").json()["id"] == 7
    assert stats(sandbox)["refused"]["getVersion wrong_id"] >= 2


def test_wrong_id_in_a_batch_changes_its_own_call_only(sandbox):
    set_faults(sandbox, rpc_fault_next={"wrong_id@getVersion": 1})
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "getHealth"},
        {"jsonrpc": "2.0", "id": 2, "method": "getVersion"},
        {"jsonrpc": "2.0", "id": 3, "method": "getHealth"},
    ]
    answers = web.post(sandbox.rpc_url, json=batch).json()
    assert [a["id"] for a in answers] == [1, 1000005, 3]
    assert answers[1]["result"]["solana-core"] == "2.2.0"


def test_swapped_answers_the_last_body_served_to_another_request(sandbox):
    served = _call(sandbox, "getIdentity", id=41).json()
    set_faults(sandbox, rpc_fault_next={"swapped@getSlot": 1})
    assert _call(sandbox, "getSlot", id=42).json() == served  # verbatim, its id too
    assert isinstance(_call(sandbox, "getSlot", id=43).json()["result"], int)
    assert stats(sandbox)["refused"]["getSlot swapped"] >= 1


def test_swapped_before_any_answer_is_a_wrong_id(sandbox_factory):
    fresh = sandbox_factory()
    set_faults(fresh, rpc_fault_next={"swapped": 1})
    assert _call(fresh, "getHealth", id=5).json() == {
        "jsonrpc": "2.0",
        "result": "ok",
        "id": 5 + 1000003,
    }


def test_failed_processed_reports_a_landed_transaction_failed_then_it_is_confirmed(sandbox):
    signature, _ = _send_transfer(sandbox)
    unknown = str(Keypair().sign_message(b"never sent"))
    set_faults(sandbox, rpc_fault_next={"failed_processed@getSignatureStatuses": 1})
    lied = _statuses(sandbox, signature, unknown)  # it lands at this call's slot
    slot = lied["context"]["slot"]
    assert lied == {
        "context": {"slot": slot, "apiVersion": "2.2.0"},
        "value": [
            {
                "slot": slot,
                "confirmations": 0,
                "err": FAILED,
                "status": {"Err": FAILED},
                "confirmationStatus": "processed",
            },
            None,
        ],
    }
    [status] = _statuses(sandbox, signature)["value"]  # the fault is used up
    assert status["confirmationStatus"] == "confirmed" and status["err"] is None
    assert status["status"] == {"Ok": None}
    assert stats(sandbox)["refused"]["getSignatureStatuses failed_processed"] >= 1


def test_fork_forgets_what_landed_in_its_own_slot(sandbox):
    older, _ = _send_transfer(sandbox)
    assert _statuses(sandbox, older)["value"][0] is not None
    fresh, _ = _send_transfer(sandbox)
    set_faults(sandbox, rpc_fault_next={"fork@getSignatureStatuses": 1})
    value = _statuses(sandbox, older, fresh)["value"]  # `fresh` lands at this call's slot
    assert value[0]["confirmationStatus"] == "confirmed" and value[1] is None
    assert _statuses(sandbox, fresh)["value"][0]["confirmationStatus"] == "confirmed"


def test_no_history_forgets_what_landed_more_than_150_slots_ago(sandbox):
    old, _ = _send_transfer(sandbox)
    assert _statuses(sandbox, old)["value"][0] is not None  # landed
    web.post(f"{sandbox.url}/_sandbox/advance", params={"slots": 151}).raise_for_status()
    recent, _ = _send_transfer(sandbox)
    set_faults(sandbox, rpc_fault_next={"no_history": 2})
    search = {"searchTransactionHistory": True}
    value = _call(sandbox, "getSignatureStatuses", [[old, recent], search]).json()["result"]
    assert value["value"][0] is None and value["value"][1]["err"] is None
    assert _call(sandbox, "getTransaction", [old, "json"]).json()["result"] is None
    assert _call(sandbox, "getTransaction", [old, "json"]).json()["result"]["slot"] > 0
    assert _statuses(sandbox, old)["value"][0]["confirmationStatus"] == "finalized"
    refused = stats(sandbox)["refused"]
    assert refused["getSignatureStatuses no_history"] >= 1
    assert refused["getTransaction no_history"] >= 1


def test_stale_answers_from_a_view_100_slots_behind(sandbox):
    web.post(f"{sandbox.url}/_sandbox/advance", params={"slots": 120}).raise_for_status()
    signature, recipient = _send_transfer(sandbox)
    now = _statuses(sandbox, signature)  # landed
    head = now["context"]["slot"]
    set_faults(sandbox, rpc_fault_next={"stale": 4})
    stale = _statuses(sandbox, signature)
    assert stale["context"]["slot"] < head and stale["value"] == [None]
    epoch = _call(sandbox, "getEpochInfo").json()["result"]
    assert epoch["absoluteSlot"] == epoch["blockHeight"] < head
    account = _call(sandbox, "getAccountInfo", [recipient]).json()["result"]
    assert account["value"] is None and account["context"]["slot"] < head
    refused = _call(sandbox, "getBalance", [recipient, {"minContextSlot": head}]).json()
    assert refused["error"]["code"] == -32016 and refused["error"]["data"]["contextSlot"] < head
    assert _call(sandbox, "getAccountInfo", [recipient]).json()["result"]["value"] is not None
    assert stats(sandbox)["refused"]["getEpochInfo stale"] >= 1
