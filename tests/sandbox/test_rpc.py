"""The sandbox's Solana JSON-RPC, driven by solana-py's AsyncClient unchanged: node info,
the blockhash window, landing and commitments, errors as a node gives them, faults,
PubSub over WebSocket, and the slot clock."""

from __future__ import annotations

import asyncio
import base64
import json
import time

import httpx
import pytest
import websockets
from solana.rpc.async_api import AsyncClient
from solana.rpc.core import RPCException
from solana.rpc.models import TxOpts
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.signature import Signature
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.sandbox.faults import Faults
from tests.support.solana import funded_keypair, wait_for


def transfer_tx(sender: Keypair, lamports: int, blockhash, to=None) -> VersionedTransaction:
    ix = transfer(
        TransferParams(
            from_pubkey=sender.pubkey(), to_pubkey=to or Keypair().pubkey(), lamports=lamports
        )
    )
    return VersionedTransaction(
        MessageV0.try_compile(sender.pubkey(), [ix], [], blockhash), [sender]
    )


def advance(sandbox, slots: int) -> int:
    return web.post(f"{sandbox.url}/_sandbox/advance", params={"slots": slots}).json()["slot"]


def raw_rpc(sandbox, method: str, params: list) -> httpx.Response:
    return web.post(
        sandbox.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    )


@pytest.fixture
async def chain(sandbox_factory):
    running = sandbox_factory()
    async with AsyncClient(running.rpc_url) as rpc:
        yield running, rpc


async def test_node_info(chain):
    sandbox, rpc = chain
    assert (await rpc.get_version()).value.solana_core
    assert (await rpc.get_genesis_hash()).value
    info = (await rpc.get_epoch_info()).value
    assert info.absolute_slot == info.block_height
    assert (await rpc.get_minimum_balance_for_rent_exemption(165)).value == 2039280
    assert raw_rpc(sandbox, "getHealth", []).json()["result"] == "ok"


async def test_a_blockhash_lives_150_blocks(chain):
    sandbox, rpc = chain
    latest = (await rpc.get_latest_blockhash()).value
    height = (await rpc.get_block_height()).value  # at --slot-ms 0 this call is one slot
    assert latest.last_valid_block_height == height - 1 + 150

    def valid() -> bool:
        return raw_rpc(sandbox, "isBlockhashValid", [str(latest.blockhash)]).json()["result"][
            "value"
        ]

    assert (
        advance(sandbox, latest.last_valid_block_height - height) == latest.last_valid_block_height
    )
    assert valid() is True
    advance(sandbox, 1)
    assert valid() is False


async def test_lands_next_slot_confirmed_one_later_finalized_32_later(chain):
    sandbox, rpc = chain
    sender = await funded_keypair(rpc)
    blockhash = (await rpc.get_latest_blockhash()).value.blockhash
    sent_at = advance(sandbox, 1)
    signature = (
        await rpc.send_raw_transaction(bytes(transfer_tx(sender, 1_000_000, blockhash)))
    ).value
    statuses = lambda: rpc.get_signature_statuses([signature])  # noqa: E731
    first = (await statuses()).value[0]  # this call moves the chain one slot
    assert first.slot == sent_at + 1 and str(first.confirmation_status).endswith("Processed")
    second = (await statuses()).value[0]
    assert str(second.confirmation_status).endswith("Confirmed") and second.confirmations == 1
    advance(sandbox, 31)
    third = (await statuses()).value[0]
    assert str(third.confirmation_status).endswith("Finalized") and third.confirmations is None
    landed = (await rpc.get_transaction(signature, encoding="base64")).value
    assert landed.slot == sent_at + 1 and landed.transaction.meta.err is None


async def test_preflight_errors_are_the_nodes(chain):
    sandbox, rpc = chain
    sender = await funded_keypair(rpc, sol=1)
    old = (await rpc.get_latest_blockhash()).value.blockhash
    advance(sandbox, 151)
    fresh = (await rpc.get_latest_blockhash()).value.blockhash
    with pytest.raises(RPCException, match="Blockhash not found"):
        await rpc.send_raw_transaction(bytes(transfer_tx(sender, 1_000_000, old)))
    with pytest.raises(RPCException, match="custom program error: 0x1"):
        await rpc.send_raw_transaction(bytes(transfer_tx(sender, 5 * 10**9, fresh)))
    with pytest.raises(RPCException, match="no record of a prior credit"):
        await rpc.send_raw_transaction(bytes(transfer_tx(Keypair(), 1, fresh)))
    good = transfer_tx(sender, 1_000_000, fresh)
    forged = VersionedTransaction.populate(good.message, [Keypair().sign_message(b"x")])
    answer = raw_rpc(
        sandbox,
        "sendTransaction",
        [base64.b64encode(bytes(forged)).decode(), {"encoding": "base64"}],
    ).json()
    assert answer["error"] == {
        "code": -32003,
        "message": "Transaction signature verification failure",
    }
    preflight = raw_rpc(
        sandbox,
        "sendTransaction",
        [
            base64.b64encode(bytes(transfer_tx(sender, 10**12, fresh))).decode(),
            {"encoding": "base64"},
        ],
    ).json()["error"]
    assert preflight["code"] == -32002 and preflight["data"]["err"] == {
        "InstructionError": [0, {"Custom": 1}]
    }
    assert any("insufficient lamports" in line for line in preflight["data"]["logs"])


async def test_expired_blockhash_without_preflight_is_accepted_and_never_lands(chain):
    sandbox, rpc = chain
    sender = await funded_keypair(rpc)
    old = (await rpc.get_latest_blockhash()).value.blockhash
    advance(sandbox, 152)
    tx = transfer_tx(sender, 1_000_000, old)
    signature = (await rpc.send_raw_transaction(bytes(tx), opts=TxOpts(skip_preflight=True))).value
    advance(sandbox, 5)
    assert (
        await rpc.get_signature_statuses([signature], search_transaction_history=True)
    ).value == [None]


async def test_resending_the_same_bytes_lands_once(chain):
    sandbox, rpc = chain
    sender = await funded_keypair(rpc)
    tx = transfer_tx(sender, 1_000_000, (await rpc.get_latest_blockhash()).value.blockhash)
    for _ in range(3):
        await rpc.send_raw_transaction(bytes(tx), opts=TxOpts(skip_preflight=True))
    await wait_for(rpc, tx.signatures[0])
    with pytest.raises(RPCException, match="already been processed"):
        await rpc.send_raw_transaction(bytes(tx))
    assert (
        await rpc.send_raw_transaction(bytes(tx), opts=TxOpts(skip_preflight=True))
    ).value == tx.signatures[0]
    stats = web.get(f"{sandbox.url}/_sandbox/stats").json()
    assert stats["chain"]["transactions"] == 2  # the airdrop and the transfer


async def test_accounts_and_simulation(chain):
    _, rpc = chain
    sender = await funded_keypair(rpc, sol=3)
    other = Keypair()
    accounts = (await rpc.get_multiple_accounts([sender.pubkey(), other.pubkey()])).value
    assert accounts[0].lamports == 3 * 10**9 and accounts[1] is None
    assert (await rpc.get_account_info(other.pubkey())).value is None
    blockhash = (await rpc.get_latest_blockhash()).value.blockhash
    simulated = (await rpc.simulate_transaction(transfer_tx(sender, 10**12, blockhash))).value
    assert simulated.err is not None and simulated.logs
    ok = (await rpc.simulate_transaction(transfer_tx(sender, 1_000_000, blockhash))).value
    assert ok.err is None


def test_batches_and_malformed_requests(sandbox):
    answer = web.post(
        sandbox.rpc_url,
        json=[
            {"jsonrpc": "2.0", "id": 1, "method": "getSlot"},
            {"jsonrpc": "2.0", "id": 2, "method": "nope"},
        ],
    ).json()
    assert isinstance(answer[0]["result"], int) and answer[1]["error"]["code"] == -32601
    assert web.post(sandbox.rpc_url, content=b"{not json").json()["error"]["code"] == -32700
    bad = raw_rpc(sandbox, "getBalance", ["not-a-key"]).json()["error"]
    assert bad["code"] == -32602


async def test_dropped_and_delayed_transactions(sandbox_factory):
    sandbox = sandbox_factory(faults=Faults(drop_rate=1.0))
    async with AsyncClient(sandbox.rpc_url) as rpc:
        sender = await funded_keypair(rpc)  # airdrops do not go through sendTransaction
        tx = transfer_tx(sender, 1_000_000, (await rpc.get_latest_blockhash()).value.blockhash)
        signature = (await rpc.send_raw_transaction(bytes(tx))).value
        advance(sandbox, 10)
        assert (await rpc.get_signature_statuses([signature])).value == [None]
        web.put(f"{sandbox.url}/_sandbox/faults", json={"drop_rate": 0})
        # A drop loses one send, not the transaction: the same bytes sent again land.
        assert (await rpc.send_raw_transaction(bytes(tx))).value == signature
        assert (await wait_for(rpc, signature, "processed")).err is None
        web.put(f"{sandbox.url}/_sandbox/faults", json={"delay_slots": 3})
        tx = transfer_tx(sender, 2_000_000, (await rpc.get_latest_blockhash()).value.blockhash)
        sent_at = advance(sandbox, 1)
        signature = (await rpc.send_raw_transaction(bytes(tx))).value
        status = await wait_for(rpc, signature, "processed")
        assert status.slot == sent_at + 4


def test_rpc_and_api_refusals(sandbox_factory):
    sandbox = sandbox_factory()
    web.put(f"{sandbox.url}/_sandbox/faults", json={"rpc_error_rate": 1, "error_status": 429})
    refused = raw_rpc(sandbox, "getSlot", [])
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    assert refused.json()["error"]["code"] == 429
    web.put(
        f"{sandbox.url}/_sandbox/faults",
        json={"rpc_error_rate": 0, "api_error_rate": 1, "error_status": 503},
    )
    assert web.get(f"{sandbox.base_url}/agents").status_code == 503
    web.put(
        f"{sandbox.url}/_sandbox/faults",
        json={"api_error_rate": 0, "fail_next": {"GET /v1/agents": 2}},
    )
    statuses = [web.get(f"{sandbox.base_url}/agents").status_code for _ in range(3)]
    assert statuses == [500, 500, 200]
    stats = web.get(f"{sandbox.url}/_sandbox/stats").json()
    assert stats["refused"] == {"getSlot": 1, "GET /v1/agents": 3}
    assert stats["api"]["GET /v1/agents"] == 4
    bad = web.put(f"{sandbox.url}/_sandbox/faults", json={"drop_rate": 3})
    assert bad.status_code == 400


async def test_latency_is_added(sandbox_factory):
    sandbox = sandbox_factory(faults=Faults(latency_ms=200))
    started = time.monotonic()
    raw_rpc(sandbox, "getSlot", [])
    assert time.monotonic() - started >= 0.2


async def test_signature_subscribe_notifies_at_the_commitment(chain):
    sandbox, rpc = chain
    sender = await funded_keypair(rpc)
    tx = transfer_tx(sender, 1_000_000, (await rpc.get_latest_blockhash()).value.blockhash)
    async with websockets.connect(sandbox.ws_url) as ws:
        await ws.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 7,
                    "method": "signatureSubscribe",
                    "params": [str(tx.signatures[0]), {"commitment": "confirmed"}],
                }
            )
        )
        subscribed = json.loads(await ws.recv())
        assert subscribed["id"] == 7 and isinstance(subscribed["result"], int)
        await rpc.send_raw_transaction(bytes(tx))
        advance(sandbox, 1)  # lands: processed, not yet what we asked for
        advance(sandbox, 1)  # confirmed
        note = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
        assert note["method"] == "signatureNotification"
        assert note["params"] == {
            "result": {
                "context": {"slot": note["params"]["result"]["context"]["slot"]},
                "value": {"err": None},
            },
            "subscription": subscribed["result"],
        }


async def test_slots_advance_on_the_clock(sandbox_factory):
    sandbox = sandbox_factory(slot_ms=20)
    first = raw_rpc(sandbox, "getSlot", []).json()["result"]
    deadline = time.monotonic() + 5
    while raw_rpc(sandbox, "getSlot", []).json()["result"] < first + 5:
        assert time.monotonic() < deadline, "the slot clock is not running"
        await asyncio.sleep(0.02)


def test_unknown_signature_status_is_null(sandbox):
    answer = raw_rpc(
        sandbox,
        "getSignatureStatuses",
        [[str(Signature.default())], {"searchTransactionHistory": True}],
    ).json()
    assert answer["result"]["value"] == [None]


def test_two_airdrops_in_one_slot_credit_twice(sandbox):
    key = str(Keypair().pubkey())
    for _ in range(2):
        answer = raw_rpc(sandbox, "requestAirdrop", [key, 10**9]).json()
        assert "result" in answer, answer
    balance = raw_rpc(sandbox, "getBalance", [key]).json()["result"]["value"]
    assert balance == 2 * 10**9
