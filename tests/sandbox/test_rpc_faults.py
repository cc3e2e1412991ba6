"""The sandbox answers every way a real node fails, with the bodies real nodes send, and
ChainRpc maps each onto the error tree: transient ones asked again, refusals in one line,
and no answer (malformed, or one that makes solders panic) ever a traceback. Outages too:
a provider's pages (nginx, a CDN), a rate limit, a call never answered (run or not), a
PubSub handshake that never completes. (The lies: test_rpc_lies.py.)"""

from __future__ import annotations

import base64

import httpx
import pytest
from solders.hash import Hash
from solders.keypair import Keypair

import launchops.web as web
from launchops.chain.rpc import ChainRpc
from launchops.errors import LaunchOpsError, RpcRefused, RpcUnavailable, TransactionRejected
from launchops.retries import RetryPolicy
from tests.support.pipeline import advance, set_faults, stats

ONCE = RetryPolicy(attempts=1)
TWICE = RetryPolicy(attempts=3, initial_wait=0.01, max_wait=0.02)

# name -> (code, message start, data) of the error a node sends
BODIES = {
    "behind": (-32005, "Node is behind by 153 slots", {"numSlotsBehind": 153}),
    "unhealthy": (-32005, "Node is unhealthy", {"numSlotsBehind": None}),
    "unhealthy_no_data": (-32005, "Node is unhealthy", ...),
    "block_cleaned_up": (-32001, "Block ", ...),
    "block_not_available": (-32004, "Block not available for slot ", ...),
    "slot_skipped": (-32007, "Slot ", ...),
    "long_term_storage_slot_skipped": (-32009, "Slot ", ...),
    "block_status_not_available": (-32014, "Block status not yet available for slot ", ...),
    "min_context_slot": (-32016, "Minimum context slot has not been reached", "contextSlot"),
    "internal": (-32603, "Internal error", ...),
    "signature_verification": (-32003, "Transaction signature verification failure", ...),
}
TRANSIENT = [
    "behind",
    "unhealthy",
    "unhealthy_no_data",
    "block_cleaned_up",
    "block_not_available",
    "slot_skipped",
    "long_term_storage_slot_skipped",
    "block_status_not_available",
    "min_context_slot",
    "internal",
    "http_502",
    "http_504",
    "not_json",
    "truncated",
    "wrong_shape",
    "huge_number",
    "null_result",
]


def _raw_call(sandbox, method: str, params: list) -> httpx.Response:
    return web.post(
        sandbox.rpc_url, json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    )


@pytest.mark.parametrize("name", sorted(BODIES))
def test_each_error_has_the_body_a_node_sends(sandbox, name):
    code, message, data = BODIES[name]
    set_faults(sandbox, rpc_fault_next={f"{name}@getSlot": 1})
    answer = _raw_call(sandbox, "getSlot", [])
    assert answer.status_code == 200
    body = answer.json()
    assert body["id"] == 7 and body["jsonrpc"] == "2.0" and "result" not in body
    error = body["error"]
    assert error["code"] == code and error["message"].startswith(message)
    if data is ...:
        assert "data" not in error
    elif isinstance(data, str):
        assert isinstance(error["data"][data], int)
    else:
        assert error["data"] == data
    assert _raw_call(sandbox, "getSlot", []).json()["result"] >= 0  # only the next one


def test_a_fault_for_one_method_leaves_the_others_and_is_counted(sandbox):
    set_faults(sandbox, rpc_fault_next={"behind@getBalance": 1})
    assert "result" in _raw_call(sandbox, "getSlot", []).json()
    assert _raw_call(sandbox, "getBalance", [str(Keypair().pubkey())]).json()["error"]
    assert stats(sandbox)["refused"].get("getBalance behind") == 1


def test_an_unknown_fault_name_is_refused_with_the_known_ones(sandbox):
    answer = web.put(f"{sandbox.url}/_sandbox/faults", json={"rpc_faults": {"lagging": 0.5}})
    assert answer.status_code == 400 and "unknown RPC fault 'lagging'" in answer.text
    assert "behind" in answer.text


@pytest.mark.parametrize("name", TRANSIENT)
async def test_each_transient_answer_is_asked_again(sandbox, name):
    set_faults(sandbox, rpc_fault_next={f"{name}@getEpochInfo": 2})
    rpc = ChainRpc(sandbox.rpc_url, retry=TWICE)
    try:
        epoch = await rpc.epoch()  # the third attempt is served
        assert epoch.slot >= 0
        set_faults(sandbox, rpc_fault_next={f"{name}@getEpochInfo": 1})
        rpc.retry = ONCE
        with pytest.raises(RpcUnavailable) as raised:
            await rpc.epoch()
    finally:
        await rpc.close()
    assert raised.value.transient and sandbox.rpc_url in str(raised.value)
    assert "\n" not in str(raised.value)


async def test_a_lagging_node_behind_a_min_context_slot_says_so(sandbox):
    set_faults(sandbox, rpc_lag_slots={"*": 5})
    rpc = ChainRpc(sandbox.rpc_url, retry=ONCE)
    try:
        for _ in range(8):  # at --slot-ms 0 each progress call is a slot
            await rpc.epoch()
        head = (await rpc.epoch()).slot + 5
        with pytest.raises(RpcUnavailable) as raised:
            await rpc.existing([Keypair().pubkey()], min_context_slot=head)
        assert raised.value.code == -32016
        found, slot = await rpc.existing([Keypair().pubkey()])
        assert found == [False] and slot is not None and slot < head
    finally:
        set_faults(sandbox, rpc_lag_slots={})
        await rpc.close()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("insufficient_funds", "has no SOL on this network"),
        ("signature_verification", "signature verification failure"),
    ],
)
async def test_refusals_of_a_transaction_say_what_to_fix(sandbox, name, words):
    from tests.support.solana import transfer_bytes

    payer = Keypair()
    set_faults(sandbox, rpc_fault_next={f"{name}@sendTransaction": 1})
    rpc = ChainRpc(sandbox.rpc_url, retry=TWICE)
    try:
        raw = await transfer_bytes(rpc, payer)
        with pytest.raises(TransactionRejected) as raised:
            await rpc.send(raw, skip_preflight=True)
    finally:
        await rpc.close()
    assert words in str(raised.value) and not raised.value.transient
    if name == "insufficient_funds":
        assert str(payer.pubkey()) in str(raised.value)


async def test_blockhash_not_found_and_already_processed_are_read_from_data(sandbox):
    from tests.support.solana import transfer_bytes

    rpc = ChainRpc(sandbox.rpc_url, retry=ONCE)
    try:
        raw = await transfer_bytes(rpc, Keypair())
        for name in ("blockhash_not_found", "already_processed"):
            set_faults(sandbox, rpc_fault_next={f"{name}@sendTransaction": 1})
            with pytest.raises(TransactionRejected) as raised:
                await rpc.send(raw, skip_preflight=True)
            assert getattr(raised.value, name), name
    finally:
        await rpc.close()


async def test_a_call_the_node_refuses_is_not_asked_again(sandbox):
    rpc = ChainRpc(sandbox.rpc_url, retry=TWICE)
    try:
        with pytest.raises(RpcRefused) as raised:
            await rpc.call("getNothing", [])
    finally:
        await rpc.close()
    assert raised.value.code == -32601 and rpc.calls == 1
    assert isinstance(raised.value, LaunchOpsError)


# ── the new faults; outages: answers that never come or are not the node's ───

NEW_NAMES = [
    "failed_processed",
    "no_history",
    "fork",
    "stale",
    "wrong_id",
    "swapped",
    "blackhole",
    "lost_answer",
    "rate_limited",
]


def _call(sandbox, method: str, params: list | None = None, **kw) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": kw.pop("id", 7), "method": method, "params": params or []}
    return web.post(sandbox.rpc_url, json=body, **kw)


def _signed_transfer(sandbox) -> tuple[str, str, str]:
    """A transfer from a new funded key to a new one: its base64 bytes, its signature and
    its recipient."""
    from solders.message import MessageV0
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    payer, recipient = Keypair(), Keypair().pubkey()
    _call(sandbox, "requestAirdrop", [str(payer.pubkey()), 10**9]).raise_for_status()
    blockhash = _call(sandbox, "getLatestBlockhash").json()["result"]["value"]["blockhash"]
    move = transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=recipient, lamports=10**6))
    message = MessageV0.try_compile(payer.pubkey(), [move], [], Hash.from_string(blockhash))
    tx = VersionedTransaction(message, [payer])
    return base64.b64encode(bytes(tx)).decode(), str(tx.signatures[0]), str(recipient)


def _send(sandbox, raw: str, **kw) -> httpx.Response:
    return _call(sandbox, "sendTransaction", [raw, {"encoding": "base64"}], **kw)


def _send_transfer(sandbox) -> tuple[str, str]:
    """A transfer sent (it lands at the next slot): its signature and its recipient."""
    raw, signature, recipient = _signed_transfer(sandbox)
    assert _send(sandbox, raw).json()["result"] == signature
    return signature, recipient


def _statuses(sandbox, *signatures: str) -> dict:
    return _call(sandbox, "getSignatureStatuses", [list(signatures)]).json()["result"]


@pytest.mark.parametrize("name", NEW_NAMES)
def test_a_new_fault_for_one_method_leaves_the_others(sandbox, name):
    set_faults(sandbox, rpc_fault_next={f"{name}@getBalance": 1})
    try:
        answer = _call(sandbox, "getSlot", timeout=2)
        assert answer.status_code == 200 and answer.json()["id"] == 7
        assert isinstance(answer.json()["result"], int)
        left = web.get(f"{sandbox.url}/_sandbox/faults").json()["rpc_fault_next"]
        assert left == {f"{name}@getBalance": 1}
    finally:
        set_faults(sandbox, rpc_fault_next={})


def test_rate_limited_is_a_429_with_retry_after_and_a_json_rpc_body(sandbox):
    before = stats(sandbox)["refused"].get("getSlot rate_limited", 0)
    set_faults(sandbox, rpc_fault_next={"rate_limited@getSlot": 2})
    for _ in range(2):
        answer = _call(sandbox, "getSlot")
        assert answer.status_code == 429 and answer.headers["retry-after"] == "45"
        assert answer.content == (
            b'{"jsonrpc":"2.0","error":{"code":429,'
            b'"message":"Too many requests for a specific RPC call"},"id":7}'
        )
    assert _call(sandbox, "getSlot").status_code == 200  # the next two only
    assert stats(sandbox)["refused"]["getSlot rate_limited"] == before + 2


@pytest.mark.parametrize(("name", "status"), [("http_502", 502), ("http_504", 504)])
def test_the_gateway_pages_are_nginxs_own(sandbox, name, status):
    title = {502: "502 Bad Gateway", 504: "504 Gateway Time-out"}[status]
    set_faults(sandbox, rpc_fault_next={f"{name}@getSlot": 1})
    answer = _call(sandbox, "getSlot")
    assert answer.status_code == status and answer.headers["content-type"] == "text/html"
    assert (
        answer.content
        == (
            f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}"
            "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
        ).encode()
    )


def test_not_json_is_a_cdns_browser_check(sandbox):
    set_faults(sandbox, rpc_fault_next={"not_json@getSlot": 1})
    answer = _call(sandbox, "getSlot")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=UTF-8"
    assert "<title>Just a moment...</title>\r\n" in answer.text
    assert answer.text.endswith("</html>\r\n") and "\n" not in answer.text.replace("\r\n", "")


def test_blackhole_never_answers_and_runs_nothing(sandbox):
    raw, signature, _ = _signed_transfer(sandbox)
    set_faults(sandbox, rpc_fault_next={"blackhole@sendTransaction": 1})
    with pytest.raises(httpx.ReadTimeout):
        _send(sandbox, raw, timeout=0.5)
    advance(sandbox, 2)
    assert _statuses(sandbox, signature)["value"] == [None]  # never sent on
    assert stats(sandbox)["refused"]["sendTransaction blackhole"] >= 1
    assert _call(sandbox, "getHealth").json()["result"] == "ok"  # the node serves others


def test_lost_answer_runs_the_call_and_never_answers(sandbox):
    raw, signature, _ = _signed_transfer(sandbox)
    set_faults(sandbox, rpc_fault_next={"lost_answer@sendTransaction": 1})
    with pytest.raises(httpx.ReadTimeout):
        _send(sandbox, raw, timeout=0.5)
    [status] = _statuses(sandbox, signature)["value"]  # it lands anyway
    assert status is not None and status["err"] is None
    assert stats(sandbox)["refused"]["sendTransaction lost_answer"] >= 1


def test_a_held_call_whose_caller_waits_is_answered_504_at_the_end(sandbox, monkeypatch):
    from launchops.sandbox import outages

    monkeypatch.setattr(outages, "HOLD_SECONDS", 0.3)
    set_faults(sandbox, rpc_fault_next={"blackhole@getSlot": 1})
    answer = _call(sandbox, "getSlot", timeout=5)
    assert answer.status_code == 504 and "504 Gateway Time-out" in answer.text


def test_rated_faults_replay_the_same_under_the_same_seed(sandbox_factory):
    def pattern(seed: int) -> list[int]:
        running = sandbox_factory(seed=seed)
        set_faults(running, rpc_faults={"wrong_id@getHealth": 0.5})
        return [_call(running, "getHealth", id=1).json()["id"] for _ in range(24)]

    first = pattern(11)
    assert first == pattern(11) and set(first) == {1, 1000004}


async def test_pubsub_hang_never_completes_the_websocket_handshake(sandbox):
    from solana.rpc.websocket_api import SolanaWsClient

    before = stats(sandbox)["refused"].get("PubSub pubsub_hang", 0)
    root = sandbox.url.replace("http://", "ws://")
    set_faults(sandbox, pubsub_hang=True)
    try:
        for url in (sandbox.ws_url, root):  # port + 1, and `/` on the RPC port
            with pytest.raises(TimeoutError):
                await SolanaWsClient(url, open_timeout=1.0).connect()
        set_faults(sandbox, pubsub_hang=False, pubsub_hang_next=1)
        with pytest.raises(TimeoutError):
            await SolanaWsClient(sandbox.ws_url, open_timeout=1.0).connect()
    finally:
        set_faults(sandbox, pubsub_hang=False, pubsub_hang_next=0)
    client = await SolanaWsClient(sandbox.ws_url, open_timeout=1.0).connect()
    await client.close()
    assert stats(sandbox)["refused"]["PubSub pubsub_hang"] == before + 3
