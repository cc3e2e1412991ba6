"""Jito's own JS client (`jito-js-rpc`) against the sandbox's block engine, unchanged: it
reads the tip accounts, sends a bundle (a transfer and a tip, base64) and reads its
in-flight and landed statuses in the shapes it expects of Jito."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess

import pytest
from solana.rpc.async_api import AsyncClient
from solders.pubkey import Pubkey
from solders.signature import Signature

import launchops.web as web
from tests.interop.test_js_client import JS, REQUIRED
from tests.support.solana import funded_keypair

READY = shutil.which("node") is not None and (JS / "node_modules" / "jito-js-rpc").is_dir()

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        not READY and not REQUIRED,
        reason="node or the npm packages are missing (npm ci in tests/interop/js)",
    ),
]


def test_jitos_js_client_lands_a_bundle_at_the_sandbox(sandbox_factory):
    sandbox = sandbox_factory(slot_ms=50)
    engine = web.get(f"{sandbox.url}/_sandbox/info").json()["blockEngineUrl"]

    async def fund():
        async with AsyncClient(sandbox.rpc_url) as rpc:
            return await funded_keypair(rpc)

    payer = asyncio.run(fund())
    run = subprocess.run(
        [
            "node",
            str(JS / "jito_bundle.mjs"),
            engine,
            sandbox.rpc_url,
            json.dumps(list(bytes(payer))),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["inflight"]["status"] == "Landed"
    landed_slot = result["inflight"]["landed_slot"]
    assert result["status"]["bundle_id"] == result["bundleId"]
    assert result["status"]["slot"] == landed_slot and result["status"]["err"] == {"Ok": None}
    assert len(result["status"]["transactions"]) == 2

    async def check():
        async with AsyncClient(sandbox.rpc_url) as rpc:
            moved = await rpc.get_balance(Pubkey.from_string(result["moved"]))
            signatures = [Signature.from_string(s) for s in result["status"]["transactions"]]
            statuses = await rpc.get_signature_statuses(signatures)
            return moved.value, [s.slot for s in statuses.value]

    moved, slots = asyncio.run(check())
    assert moved == 1_000_000 and slots == [landed_slot, landed_slot]
