"""How landings are learned: pushed over PubSub (signatureSubscribe) when the node offers
it, polled in batches when it does not or the socket fails, the same outcome either way."""

from __future__ import annotations

import pytest

from launchops.chain.watch import pubsub_url
from launchops.pipeline.runner import run_launch, validate
from launchops.sandbox.process import free_port
from tests.support.pipeline import context_for, stats, write_launch


@pytest.mark.parametrize(
    ("rpc", "ws"),
    [
        ("http://127.0.0.1:8899", "ws://127.0.0.1:8900"),
        ("https://api.mainnet-beta.solana.com", "wss://api.mainnet-beta.solana.com"),
        ("https://rpc.example.com:8443/key/abc?x=1", "wss://rpc.example.com:8444/key/abc?x=1"),
    ],
)
def test_the_pubsub_url_is_derived_as_web3js_does(rpc, ws):
    assert pubsub_url(rpc) == ws


async def launched(sandbox, tmp_path, key: str, **profile) -> dict:
    async with context_for(sandbox, tmp_path, **profile) as ctx:
        before = stats(sandbox)["rpc"]  # after the sandbox key's airdrop
        record = await run_launch(ctx, (await validate(ctx, write_launch(tmp_path, key=key))).key)
        subscribed = ctx.watcher.feed.subscribed if ctx.watcher.feed else 0
    assert record.state == "registered", record.last_error
    after = stats(sandbox)["rpc"]
    calls = {m: after.get(m, 0) - before.get(m, 0) for m in after}
    sent = len(record.signatures)  # the launch's transactions, each sent once
    return {"calls": {m: n for m, n in calls.items() if n}, "subscribed": subscribed, "sent": sent}


async def test_landings_are_pushed_not_polled(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50)
    # Fallback polling only after 5 s of silence: every landing here must come by push.
    seen = await launched(sandbox, tmp_path, "pushed", rebroadcast_seconds=5.0)
    assert seen["sent"] >= 2
    assert seen["subscribed"] == seen["sent"]
    assert seen["calls"].get("signatureSubscribe") == seen["sent"]
    assert seen["calls"].get("sendTransaction") == seen["sent"]
    assert "getSignatureStatuses" not in seen["calls"], seen["calls"]


async def test_without_pubsub_landings_are_polled(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50)
    seen = await launched(sandbox, tmp_path, "polled", ws_url="none")
    assert seen["subscribed"] == 0 and "signatureSubscribe" not in seen["calls"]
    assert seen["calls"]["getSignatureStatuses"] >= 2


async def test_an_unreachable_pubsub_falls_back_to_polling(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50)
    nowhere = f"ws://127.0.0.1:{free_port()}"
    seen = await launched(sandbox, tmp_path, "fallback", ws_url=nowhere)
    assert seen["subscribed"] == 0
    assert seen["calls"]["getSignatureStatuses"] >= 2
    assert seen["calls"]["sendTransaction"] == seen["sent"]
