"""Fidelity with the public JS client (`@metaplex-foundation/genesis` 0.35.0) where
launchops once differed, field by field for the same input: an empty description is left
out, `raydiumLiquidityBps: 10000` sends both fund flows (an `UnlockedFunds` at 0 bps,
then `RaydiumLP`), `firstBuyAmount: 0` is no first buy; and an empty Twitter
verification token is not sent with register."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair

import launchops.web as web
from launchops.api.client import AsyncServiceClient, RetryPolicy
from launchops.config.launchfile import load_launch_file
from tests.interop.test_js_bonding_curve import node
from tests.interop.test_js_client import READY, REQUIRED
from tests.support.pipeline import dump_yaml
from tests.support.solana import funded_keypair, send_all

pytestmark = [pytest.mark.node]
needs_node = pytest.mark.skipif(
    not READY and not REQUIRED,
    reason="node or the npm packages are missing (npm ci in tests/interop/js)",
)
TOKEN = {"name": "Fidelity", "symbol": "FID", "image": "https://gateway.irys.xyz/fid"}
START = (datetime.now(UTC) + timedelta(days=3)).replace(microsecond=0)


def ours_and_theirs(tmp_path: Path, name: str, document: dict, js_launch: dict) -> tuple:
    wallet = Keypair().pubkey()
    path = tmp_path / f"{name}.yaml"
    path.write_text(dump_yaml(document))
    plan = load_launch_file(path, wallet=wallet, now=datetime.now(UTC), public_service=True)
    ours = AsyncServiceClient.create_body(wallet, plan.config)
    kind = "bondingCurve" if "bondingCurve" in document else "launchpool"
    token = {k: document[k] for k in ("name", "symbol", "image", "description") if k in document}
    theirs = {
        "wallet": str(wallet),
        "launchType": kind,
        "network": str(plan.config.network),
        "token": token,
        "launch": js_launch,
    }
    return ours, theirs


def launchpool(bps: int, recipient: str) -> tuple[dict, dict]:
    start = START.strftime("%Y-%m-%dT%H:%M:%SZ")
    ours = {
        "tokenAllocation": 300000000,
        "depositStartTime": start,
        "raiseGoal": 100,
        "raydiumLiquidityBps": bps,
        "fundsRecipient": recipient,
    }
    js = {**ours, "depositStartTime": START.isoformat().replace("+00:00", "Z")}
    return ours, {"launchpool": js}


@needs_node
def test_the_create_bodies_match_the_js_clients(tmp_path):
    recipient = str(Keypair().pubkey())
    cases = []
    for bps in (10_000, 5_000):
        ours, js = launchpool(bps, recipient)
        document = {**TOKEN, "description": "", "launchpool": ours}
        cases.append(ours_and_theirs(tmp_path, f"pool-{bps}", document, js))
    for amount in ("0", 0):
        document = {**TOKEN, "description": "", "bondingCurve": {"firstBuyAmount": amount}}
        cases.append(
            ours_and_theirs(tmp_path, f"curve-{amount!r}", document, {"firstBuyAmount": 0})
        )
    theirs = node("payload.mjs", json.dumps([js for _, js in cases]))
    for (ours, _), body in zip(cases, theirs, strict=True):
        assert json.dumps(ours, sort_keys=True) == json.dumps(body, sort_keys=True)
    full_pool = cases[0][0]["launch"]
    assert "description" not in full_pool
    flows = full_pool["allocations"][0]["launchpoolV2"]["fundFlows"]
    assert [(f["type"], f["percentageBps"]) for f in flows] == [
        ("UnlockedFunds", 0),
        ("RaydiumLP", 10_000),
    ]
    curve = cases[2][0]["launch"]["allocations"][0]["bondingCurveV2"]
    assert curve["firstBuy"] == {"enabled": False}


async def test_an_empty_twitter_token_is_not_sent(sandbox, tmp_path):
    document = {
        **TOKEN,
        "description": "",
        "launchpool": launchpool(10_000, str(Keypair().pubkey()))[0],
    }
    async with (
        AsyncServiceClient(sandbox.base_url, retry=RetryPolicy(attempts=1)) as client,
        AsyncClient(sandbox.rpc_url) as rpc,
    ):
        creator = await funded_keypair(rpc)
        path = tmp_path / "launch.yaml"
        path.write_text(dump_yaml(document))
        plan = load_launch_file(path, wallet=creator.pubkey(), now=datetime.now(UTC))
        created = await client.create_launch(creator.pubkey(), plan.config)
        await send_all(rpc, created.transactions, creator)
        await client.register_launch(
            created.genesis_account, plan.config, twitter_verification_token=""
        )
    kept = web.get(f"{sandbox.url}/_sandbox/registrations/{created.genesis_account}").json()
    assert kept["twitterTokenSha256"] is None
