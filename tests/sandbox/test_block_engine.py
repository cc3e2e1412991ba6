"""The sandbox's block engine keeps Jito's rules (at most 5 transactions, a tip of at least
1,000 lamports to a tip account, all in one slot in order or none, a bundle with a failing
or already processed transaction dropped whole, a tip under the floor passed over) and
answers on Jito's paths in Jito's shapes; the `congestion` fault loses plain sends."""

from __future__ import annotations

import base64

import base58
import pytest
from solders.hash import Hash
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.errors import RpcError
from launchops.sandbox.block_engine import TIP_ACCOUNTS
from launchops.sandbox.faults import Faults
from launchops.sandbox.service import SandboxService


def pay(payer: Keypair, to: Pubkey, lamports: int, service: SandboxService) -> bytes:
    blockhash, _ = service.chain.latest_blockhash()
    ix = transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=to, lamports=lamports))
    return bytes(
        VersionedTransaction(MessageV0.try_compile(payer.pubkey(), [ix], [], blockhash), [payer])
    )


@pytest.fixture
def service() -> SandboxService:
    return SandboxService(slot_ms=0, seed=7)


@pytest.fixture
def payer(service: SandboxService) -> Keypair:
    keypair = Keypair()
    service.chain.airdrop(keypair.pubkey(), 10**9)
    return keypair


def test_a_bundle_lands_whole_in_one_slot_in_order(service, payer):
    first, second = Keypair().pubkey(), Keypair().pubkey()
    raws = [
        pay(payer, first, 10**6, service),
        pay(payer, second, 10**6, service),
        pay(payer, TIP_ACCOUNTS[3], 1000, service),
    ]
    bundle_id = service.block_engine.send_bundle(raws)
    assert service.block_engine.send_bundle(raws) == bundle_id  # the same bundle again
    assert service.block_engine.inflight_statuses([bundle_id])["value"][0]["status"] == "Pending"
    service.chain.advance()
    slots = {
        service.chain.status(VersionedTransaction.from_bytes(r).signatures[0])["slot"] for r in raws
    }
    assert slots == {service.chain.slot}
    inflight = service.block_engine.inflight_statuses([bundle_id])["value"][0]
    assert inflight == {
        "bundle_id": bundle_id,
        "status": "Landed",
        "landed_slot": service.chain.slot,
    }
    [status] = service.block_engine.bundle_statuses([bundle_id])["value"]
    assert status["slot"] == service.chain.slot and status["err"] == {"Ok": None}
    assert len(status["transactions"]) == 3


def test_a_bundle_without_a_tip_or_too_long_is_refused(service, payer):
    with pytest.raises(RpcError, match="tip"):
        service.block_engine.send_bundle([pay(payer, Keypair().pubkey(), 10**6, service)])
    with pytest.raises(RpcError, match="tip"):
        service.block_engine.send_bundle([pay(payer, TIP_ACCOUNTS[0], 999, service)])
    six = [pay(payer, TIP_ACCOUNTS[0], 1000 + n, service) for n in range(6)]
    with pytest.raises(RpcError, match="max 5"):
        service.block_engine.send_bundle(six)


def test_a_bundle_with_a_failing_transaction_lands_nothing(service, payer):
    poor = Keypair()
    service.chain.airdrop(poor.pubkey(), 10**7)
    moved = Keypair().pubkey()
    raws = [
        pay(payer, moved, 10**6, service),
        pay(poor, Keypair().pubkey(), 10**9, service),  # more than it has
        pay(payer, TIP_ACCOUNTS[0], 5000, service),
    ]
    bundle_id = service.block_engine.send_bundle(raws)
    service.chain.advance()
    assert service.chain.account(moved) is None  # the first one's transfer undone
    assert service.chain.svm.get_balance(payer.pubkey()) == 10**9
    status = service.block_engine.inflight_statuses([bundle_id])["value"][0]["status"]
    assert status == "Failed"
    assert service.block_engine.bundle_statuses([bundle_id])["value"] == [None]


def test_a_bundle_with_a_processed_transaction_is_dropped(service, payer):
    landed = pay(payer, Keypair().pubkey(), 10**6, service)
    service.chain.send(landed)
    service.chain.advance()
    bundle_id = service.block_engine.send_bundle(
        [landed, pay(payer, TIP_ACCOUNTS[1], 2000, service)]
    )
    service.chain.advance()
    assert service.block_engine.inflight_statuses([bundle_id])["value"][0]["status"] == "Failed"


def test_a_tip_under_the_floor_is_passed_over_until_its_blockhash_dies(service, payer):
    service.set_faults(Faults(tip_floor_lamports=50_000))
    bundle_id = service.block_engine.send_bundle([pay(payer, TIP_ACCOUNTS[2], 1000, service)])
    service.chain.advance(5)
    assert service.block_engine.inflight_statuses([bundle_id])["value"][0]["status"] == "Pending"
    service.chain.advance(160)
    assert service.block_engine.inflight_statuses([bundle_id])["value"][0]["status"] == "Failed"
    high = service.block_engine.send_bundle([pay(payer, TIP_ACCOUNTS[2], 50_000, service)])
    service.chain.advance()
    assert service.block_engine.inflight_statuses([high])["value"][0]["status"] == "Landed"


def test_congestion_loses_plain_sends_and_a_rebroadcast_may_land(service, payer):
    service.set_faults(Faults(congestion=0.9))
    raw = pay(payer, Keypair().pubkey(), 10**6, service)
    signature = VersionedTransaction.from_bytes(raw).signatures[0]
    sends = 0
    while service.chain.status(signature) is None and sends < 200:
        service.chain.send(raw, skip_preflight=True)
        service.chain.advance()
        sends += 1
    assert service.chain.status(signature) is not None and sends > 1


def test_the_block_engine_answers_on_jitos_paths(sandbox_factory):
    sandbox = sandbox_factory(slot_ms=20)
    info = web.get(f"{sandbox.url}/_sandbox/info").json()
    engine = info["blockEngineUrl"]
    assert engine.endswith("/api/v1")

    def call(path: str, method: str, params: list) -> dict:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return web.post(f"{engine}/{path}", json=body).json()

    tips = call("bundles", "getTipAccounts", [])["result"]
    assert tips == [str(key) for key in TIP_ACCOUNTS]
    payer = Keypair()
    airdrop = {"jsonrpc": "2.0", "id": 1, "method": "requestAirdrop"}
    web.post(sandbox.rpc_url, json={**airdrop, "params": [str(payer.pubkey()), 10**9]})
    blockhash = web.post(
        sandbox.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": "getLatestBlockhash"}
    ).json()["result"]["value"]["blockhash"]
    ix = transfer(
        TransferParams(
            from_pubkey=payer.pubkey(), to_pubkey=Pubkey.from_string(tips[5]), lamports=1000
        )
    )
    tx = VersionedTransaction(
        MessageV0.try_compile(payer.pubkey(), [ix], [], Hash.from_string(blockhash)), [payer]
    )
    as64 = call(
        "bundles", "sendBundle", [[base64.b64encode(bytes(tx)).decode()], {"encoding": "base64"}]
    )
    as58 = call("bundles", "sendBundle", [[base58.b58encode(bytes(tx)).decode()]])
    assert as64["result"] == as58["result"]
    refused = call("bundles", "sendBundle", [["notatransaction"]])
    assert refused["error"]["code"] == -32602
    assert call("bundles", "nope", [])["error"]["code"] == -32601
    plain = transfer(
        TransferParams(from_pubkey=payer.pubkey(), to_pubkey=Keypair().pubkey(), lamports=10**6)
    )
    sent = VersionedTransaction(
        MessageV0.try_compile(payer.pubkey(), [plain], [], Hash.from_string(blockhash)), [payer]
    )
    encoded = base64.b64encode(bytes(sent)).decode()
    answer = call("transactions", "sendTransaction", [encoded, {"encoding": "base64"}])
    assert answer["result"] == str(sent.signatures[0])
    unknown = call("bundles", "getInflightBundleStatuses", [["00" * 32]])["result"]["value"]
    assert unknown == [{"bundle_id": "00" * 32, "status": "Invalid", "landed_slot": None}]
