"""A graduated curve, read with the public JS client's own code: once the sandbox's curve
sold out, its Raydium CPMM bucket fetched over JSON-RPC with the client's
`fetchRaydiumCpmmBucketV2` holds the pool (the pool state `deriveRaydiumPDAsV2` derives,
the base tokens graduated, the raise paired, the LP tokens, the creator fee accrued by a
pool buy) and the client's `isGraduated` says so; the crank's transaction, read back over
JSON-RPC, decodes with the client's serializers into `graduateToRaydiumCpmmV2` on those
accounts; and the claim the service answers into `claimBondingCurveCreatorFeeV2` and
`claimRaydiumCreatorFeeV2` on the launch's buckets."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from solders.pubkey import Pubkey

import launchops.web as web
from launchops.genesis.instructions import SPECS
from launchops.genesis.pdas import find_bucket_v2
from launchops.genesis.raydium import derive_raydium_pool
from tests.interop.test_js_bonding_curve import node
from tests.interop.test_js_client import READY, REQUIRED
from tests.support.after import buy, curve_config, launched
from tests.support.solana import funded_keypair

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        not READY and not REQUIRED,
        reason="node or the npm packages are missing (npm ci in tests/interop/js)",
    ),
]


async def test_a_graduated_curves_pool_and_claim_are_genesis_as_the_js_client_reads_them(
    sandbox, client, rpc, tmp_path: Path
):
    creator = await funded_keypair(rpc)
    genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
    buy(sandbox, genesis, 200 * 10**9)  # sells the curve out: graduated
    buy(sandbox, genesis, 5 * 10**9)  # a buy in its pool
    body = {"wallet": str(creator.pubkey()), "network": "solana-mainnet"}
    answer = web.post(f"{sandbox.base_url}/creator-rewards/claim", json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    curve = find_bucket_v2("BondingCurveBucketV2", Pubkey.from_string(genesis), 0)[0]
    bucket = find_bucket_v2("RaydiumCpmmBucketV2", Pubkey.from_string(genesis), 0)[0]
    crank = await landed_on(rpc, bucket, "graduateToRaydiumCpmmV2")
    claims = answer.json()["data"]["transactions"]
    spec = tmp_path / "graduated.json"
    spec.write_text(
        json.dumps(
            {
                "rpc": sandbox.rpc_url,
                "transactions": [*claims, crank],
                "graduated": [str(curve)],
                "fetch": [
                    ["GenesisAccountV2", genesis],
                    ["BondingCurveBucketV2", str(curve)],
                    ["RaydiumCpmmBucketV2", str(bucket)],
                ],
            }
        )
    )
    read = node("genesis_answer.mjs", f"@{spec}")
    account, sold, pool = read["fetched"]  # type: ignore[index]
    mint = Pubkey.from_string(account["baseMint"])
    derived = derive_raydium_pool(mint, bucket, creator_fee=True)
    assert pool["poolState"] == str(derived["poolState"])
    assert sold["bucket"]["baseTokenBalance"] == "0"
    assert int(pool["graduatedBaseTokenAmount"]) == int(pool["bucket"]["baseTokenAllocation"]) > 0
    assert pool["quoteTokenInSigner"] == sold["quoteTokenDepositTotal"]
    assert int(pool["lpTokenBalance"]) > 0
    assert pool["creatorFeeAccrued"] == str(5 * 10**9 * 60 // 10_000)
    assert pool["extensions"]["creatorFee"]["value"]["wallet"] == str(creator.pubkey())

    assert read["graduated"] == [True]  # type: ignore[index]

    *decoded, graduation = read["transactions"]  # type: ignore[index]
    assert [[ix["name"] for ix in tx] for tx in decoded] == [
        ["claimBondingCurveCreatorFeeV2"],
        ["claimRaydiumCreatorFeeV2"],
    ]
    [ix] = graduation
    assert ix["name"] == "graduateToRaydiumCpmmV2"
    spec_accounts = [a.name for a in SPECS["graduateToRaydiumCpmmV2"].accounts]
    roles = dict(zip(spec_accounts, ix["accounts"], strict=True))
    assert {k: roles[k] for k in derived} == {k: str(v) for k, v in derived.items()}
    assert (roles["genesisAccount"], roles["bucket"]) == (genesis, str(bucket))
    assert decoded[1][0]["accounts"][:2] == [genesis, str(bucket)]
    assert decoded[1][0]["accounts"][6] == str(creator.pubkey())  # creatorFeeWallet


async def landed_on(rpc: Any, account: Pubkey, name: str) -> str:
    """The transaction that touched `account` with Genesis instruction `name`, as base64
    (found by its discriminator, its first data byte)."""
    wanted = SPECS[name].discriminator
    for found in (await rpc.get_signatures_for_address(account)).value:
        landed = (await rpc.get_transaction(found.signature, encoding="base64")).value
        tx = landed.transaction.transaction
        if any(bytes(ix.data)[:1] == bytes([wanted]) for ix in tx.message.instructions):
            return base64.b64encode(bytes(tx)).decode()
    raise AssertionError(f"no {name} landed on {account}")
