"""Bonding curves against the public JS client (`@metaplex-foundation/genesis` 0.35.0):
launchops' create body for a `bondingCurve:` launch file is the client's own
`buildCreateLaunchPayload` for the same input, but for key order; and the client itself
launches a curve with a first buy by another wallet against the sandbox."""

from __future__ import annotations

import asyncio
import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from solana.rpc.async_api import AsyncClient
from solana.rpc.models import TokenAccountOpts
from solders.keypair import Keypair
from solders.pubkey import Pubkey

import launchops.web as web
from launchops.api.client import AsyncServiceClient
from launchops.config.launchfile import load_launch_file
from tests.interop.test_js_client import JS, READY, REQUIRED
from tests.support.pipeline import dump_yaml
from tests.support.solana import funded_keypair

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        not READY and not REQUIRED,
        reason="node or the npm packages are missing (npm ci in tests/interop/js)",
    ),
]
TOKEN = {
    "name": "Curve Token",
    "symbol": "CURVE",
    "image": "https://gateway.irys.xyz/curve",
    "description": "A curve compared with the public client.",
}


def node(script: str, *args: str) -> object:
    run = subprocess.run(
        ["node", str(JS / script), *args], capture_output=True, text=True, timeout=180
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def case(tmp_path: Path, name: str, curve: dict, **extra) -> tuple[dict, dict]:
    """Our create body for a launch file, and the JS client's input for the same launch."""
    wallet = Keypair().pubkey()
    document = {**TOKEN, "bondingCurve": curve, **extra}
    path = tmp_path / f"{name}.yaml"
    path.write_text(dump_yaml(document))
    plan = load_launch_file(path, wallet=wallet, now=datetime.now(UTC), public_service=True)
    ours = AsyncServiceClient.create_body(wallet, plan.config, agent=plan.agent)
    launch: dict = {}
    if "creatorFeeWallet" in curve:
        launch["creatorFeeWallet"] = curve["creatorFeeWallet"]
    if "firstBuyAmount" in curve:
        launch["firstBuyAmount"] = float(curve["firstBuyAmount"])
    if plan.secrets.first_buyer is not None:
        launch["firstBuyWallet"] = str(plan.secrets.first_buyer.pubkey())
    theirs = {
        "wallet": str(wallet),
        "launchType": "bondingCurve",
        "network": str(plan.config.network),
        "token": {k: document[k] for k in (*TOKEN, "externalLinks") if k in document},
        "launch": launch,
    }
    if "agent" in extra:
        theirs["agent"] = extra["agent"]
    return ours, theirs


def test_the_create_body_is_the_js_clients_but_for_key_order(tmp_path):
    buyer = Keypair()
    key_file = tmp_path / "buyer.json"
    key_file.write_text(json.dumps(list(bytes(buyer))))
    key_file.chmod(0o600)
    agent = {"mint": str(Keypair().pubkey()), "setToken": True}
    cases = [
        case(tmp_path, "plain", {}),
        case(
            tmp_path,
            "every-field",
            {
                "creatorFeeWallet": str(Keypair().pubkey()),
                "firstBuyAmount": "0.5",
                "firstBuyWallet": f"file:{key_file}",
            },
            externalLinks={"website": "https://example.com", "twitter": "@curve"},
        ),
        case(tmp_path, "first-buy-by-the-creator", {"firstBuyAmount": "1.25"}),
        case(tmp_path, "for-an-agent", {"firstBuyAmount": "2"}, agent=agent),
        case(tmp_path, "devnet", {}, network="solana-devnet"),
    ]
    theirs = node("payload.mjs", json.dumps([js for _, js in cases]))
    assert len(theirs) == len(cases)
    for (ours, _), body in zip(cases, theirs, strict=True):
        assert json.dumps(ours, sort_keys=True) == json.dumps(body, sort_keys=True)
    agent_body = cases[3][0]
    assert agent_body["agent"] == agent
    settings = agent_body["launch"]["allocations"][0]["bondingCurveV2"]
    assert settings["firstBuy"]["buyer"] == settings["creatorFee"]["wallet"] != agent_body["wallet"]


def test_the_js_client_launches_a_curve_with_a_first_buyer_on_the_sandbox(sandbox_factory):
    sandbox = sandbox_factory(slot_ms=50)

    async def fund() -> tuple[Keypair, Keypair]:
        async with AsyncClient(sandbox.rpc_url) as rpc:
            return await funded_keypair(rpc), await funded_keypair(rpc)

    creator, buyer = asyncio.run(fund())
    result = node(
        "bonding.mjs",
        sandbox.url,
        sandbox.rpc_url,
        json.dumps(list(bytes(creator))),
        json.dumps(list(bytes(buyer))),
    )
    assert result["token"]["mintAddress"] == result["mintAddress"]

    async def check() -> None:
        async with (
            AsyncServiceClient(sandbox.base_url) as client,
            AsyncClient(sandbox.rpc_url) as rpc,
        ):
            token = await client.get_token(result["mintAddress"])
            assert token.launches[0].mechanic == "bondingCurveV2"
            mint = Pubkey.from_string(result["mintAddress"])
            holders = (await rpc.get_token_largest_accounts(mint)).value
            assert len(holders) == 2  # the genesis account's escrow, the first buyer
            opts = TokenAccountOpts(mint=mint)
            owned = (await rpc.get_token_accounts_by_owner_json_parsed(buyer.pubkey(), opts)).value
            assert int(owned[0].account.data.parsed["info"]["tokenAmount"]["amount"]) > 0

    asyncio.run(check())
    stats = web.get(f"{sandbox.url}/_sandbox/stats").json()
    assert stats["launches"]["registered"] == 1
    assert stats["api"]["POST /v1/launches/register"] == 1
