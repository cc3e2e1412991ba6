"""After the launch, on the sandbox over real HTTP: a launch's status from its clock and
chain (a curve graduates when sold out), creator fees accrued by buys and claimed with
real transactions (never paid twice), and agents minted by a transaction the wallet pays."""

from __future__ import annotations

import base64

import httpx
import pytest
from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.pubkey import Pubkey

import launchops.web as web
from launchops.api.after import INVALID_WALLET, NOTHING_TO_CLAIM
from launchops.api.client import AsyncServiceClient, RetryPolicy
from launchops.api.models import LaunchConfig
from tests.api import examples as ex
from tests.support.after import buy, curve_config, lamports_of, launched
from tests.support.pipeline import future
from tests.support.solana import funded_keypair, send_all, sign, wait_for


def claim(sandbox, wallet: object, **extra: object) -> httpx.Response:
    body = {"wallet": str(wallet), "network": "solana-mainnet", **extra}
    return web.post(f"{sandbox.base_url}/creator-rewards/claim", json=body, timeout=30)


# ── launch status ───────────────────────────────────────────────────────────


async def test_a_curve_is_live_then_graduates_when_sold_out(sandbox, client, rpc):
    creator = await funded_keypair(rpc)
    genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
    url = f"{sandbox.base_url}/launches/{genesis}"
    body = web.get(url, params={"network": "solana-mainnet"}).json()
    launch = body["data"]["launch"]
    assert (launch["status"], launch["mechanic"], launch["type"]) == (
        "live",
        "bondingCurveV2",
        "bondingCurve",
    )
    assert launch["genesisAddress"] == genesis and launch["graduatedAt"] is None
    assert body["data"]["baseToken"]["symbol"] == "AFTER"
    first = buy(sandbox, genesis, 1_000_000_000)
    assert first["tokens"] > 0 and not first["graduated"]
    assert web.get(url).json()["data"]["launch"]["status"] == "live"
    sold_out = buy(sandbox, genesis, 200 * 10**9)  # more than the curve takes
    assert sold_out["graduated"] and sold_out["bucket"] == "bondingCurve"
    launch = web.get(url).json()["data"]["launch"]
    assert launch["status"] == "graduated" and launch["graduatedAt"]
    graduated = web.get(f"{sandbox.base_url}/launches", params={"status": "graduated"})
    assert genesis in [d["launch"]["genesisAddress"] for d in graduated.json()["data"]]
    live = web.get(f"{sandbox.base_url}/launches", params={"status": "live"}).json()["data"]
    assert genesis not in [d["launch"]["genesisAddress"] for d in live]


@pytest.mark.parametrize(
    ("start", "end", "status"),
    [(1, 2, "upcoming"), (-1, 1, "live"), (-2, -1, "ended")],
)
async def test_a_launchpool_stands_by_its_window(sandbox, client, rpc, start, end, status):
    creator = await funded_keypair(rpc)
    launch = ex.launchpool_launch()
    pool = launch["allocations"][0]["launchpoolV2"]
    pool["depositStartCondition"] = {"type": "TimeAbsolute", "timestamp": future(start)}
    pool["depositEndCondition"] = {"type": "TimeAbsolute", "timestamp": future(end)}
    launch["publicKey"] = str(creator.pubkey())
    genesis = await launched(client, rpc, creator, LaunchConfig.model_validate(launch))
    found = web.get(f"{sandbox.base_url}/launches/{genesis}").json()["data"]["launch"]
    assert (found["status"], found["type"], found["mechanic"]) == (
        status,
        "launchpool",
        "launchpoolV2",
    )
    listed = web.get(f"{sandbox.base_url}/launches", params={"status": status}).json()
    assert genesis in [d["launch"]["genesisAddress"] for d in listed["data"]]


UNKNOWN = str(Keypair.from_seed(bytes(32)).pubkey())  # fixed: every xdist worker collects it


@pytest.mark.parametrize("address", [UNKNOWN, "not-a-key", "x" * 90])
def test_an_unknown_launch_is_404_in_the_read_envelope(sandbox, address):
    answer = web.get(f"{sandbox.base_url}/launches/{address}")
    assert answer.status_code == 404 and answer.json() == {"error": {"message": "Launch not found"}}


def test_a_bad_launch_query_is_400_in_the_read_envelope(sandbox):
    answer = web.get(f"{sandbox.base_url}/launches", params={"status": "sideways"})
    assert answer.status_code == 400 and answer.json() == {
        "error": {"message": "Invalid input data"}
    }


# ── creator rewards ─────────────────────────────────────────────────────────


async def test_creator_fees_are_claimed_once_with_real_transactions(sandbox, client, rpc):
    creator = await funded_keypair(rpc)
    fee_wallet = await funded_keypair(rpc, sol=1)
    genesis = await launched(
        client, rpc, creator, curve_config(creator.pubkey(), fee_wallet.pubkey())
    )
    assert claim(sandbox, fee_wallet.pubkey()).json() == {"error": {"message": NOTHING_TO_CLAIM}}
    made = buy(sandbox, genesis, 10 * 10**9)
    assert made["creatorFee"] == 60_000_000  # 0.60 %
    answer = claim(sandbox, fee_wallet.pubkey())
    assert answer.status_code == 200, answer.text
    data = answer.json()["data"]
    assert len(data["transactions"]) == 1 and data["blockhash"]["lastValidBlockHeight"] > 0
    web.post(f"{sandbox.url}/_sandbox/advance")  # a new blockhash: another transaction
    again = claim(sandbox, fee_wallet.pubkey()).json()["data"]  # not landed yet: asked again
    assert again["transactions"] != data["transactions"]
    before = await lamports_of(rpc, fee_wallet.pubkey())

    await send_all(rpc, [base64.b64decode(t) for t in data["transactions"]], fee_wallet)
    after = await lamports_of(rpc, fee_wallet.pubkey())
    assert after - before == 60_000_000 - 5_000  # less the fee of its signature
    assert claim(sandbox, fee_wallet.pubkey()).json() == {"error": {"message": NOTHING_TO_CLAIM}}
    # The second answer, built before the first landed, pays nothing more.
    tx = sign(base64.b64decode(again["transactions"][0]), fee_wallet)
    signature = (await rpc.send_raw_transaction(bytes(tx), opts=_no_preflight())).value
    status = await wait_for(rpc, signature)
    assert status.err is not None
    assert await lamports_of(rpc, fee_wallet.pubkey()) == after - 5_000  # its fee only


async def test_a_curve_and_its_pool_are_claimed_in_two_transactions_by_a_payer(
    sandbox, client, rpc
):
    creator = await funded_keypair(rpc)
    genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
    buy(sandbox, genesis, 200 * 10**9)  # sells the curve out
    pool = buy(sandbox, genesis, 5 * 10**9)  # a trade in its Raydium pool
    assert pool["bucket"] == "raydium" and pool["tokens"] == 0
    payer = await funded_keypair(rpc, sol=1)
    answer = claim(sandbox, creator.pubkey(), payer=str(payer.pubkey()))
    transactions = answer.json()["data"]["transactions"]
    assert len(transactions) == 2
    before = await lamports_of(rpc, creator.pubkey())

    await send_all(rpc, [base64.b64decode(t) for t in transactions], payer)
    gained = await lamports_of(rpc, creator.pubkey()) - before
    rent = (await rpc.get_minimum_balance_for_rent_exemption(165)).value  # its wrapped SOL's
    assert gained == (200 * 10**9 + 5 * 10**9) * 60 // 10_000 + rent  # the payer paid both
    assert claim(sandbox, creator.pubkey()).status_code == 400


async def test_an_expired_claim_is_asked_again(sandbox_factory):
    sandbox = sandbox_factory()
    async with (
        AsyncServiceClient(sandbox.base_url, retry=RetryPolicy(attempts=1)) as client,
        AsyncClient(sandbox.rpc_url) as rpc,
    ):
        creator = await funded_keypair(rpc)
        genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
        buy(sandbox, genesis, 10**9)
        first = claim(sandbox, creator.pubkey()).json()["data"]
        web.post(f"{sandbox.url}/_sandbox/advance", params={"slots": 160})
        fresh = claim(sandbox, creator.pubkey()).json()["data"]
        assert fresh["blockhash"] != first["blockhash"]
        before = await lamports_of(rpc, creator.pubkey())
        import base64

        await send_all(rpc, [base64.b64decode(t) for t in fresh["transactions"]], creator)
        assert await lamports_of(rpc, creator.pubkey()) - before == 6_000_000 - 5_000


@pytest.mark.parametrize(
    "body",
    [{"wallet": "nope"}, {"wallet": ""}, {}, {"wallet": 12}, {"wallet": "1" * 600}],
)
def test_an_invalid_wallet_is_400(sandbox, body):
    answer = web.post(f"{sandbox.base_url}/creator-rewards/claim", json=body)
    assert answer.status_code == 400 and answer.json() == {"error": {"message": INVALID_WALLET}}


def _no_preflight():
    from solana.rpc.models import TxOpts

    return TxOpts(skip_preflight=True, skip_confirmation=True)


# ── minting an agent ────────────────────────────────────────────────────────


def mint_body(wallet: Pubkey, **extra: object) -> dict:
    return {
        "wallet": str(wallet),
        "network": "solana-mainnet",
        "name": "Minted Agent",
        "uri": "https://gateway.irys.xyz/minted.json",
        "agentMetadata": {"name": "Minted Agent", "description": "made in a test"},
        **extra,
    }


async def test_two_mints_are_two_agents_listed_once_confirmed(sandbox_factory):
    sandbox = sandbox_factory()  # its own: the session's sandbox keeps its 30 agents
    async with AsyncClient(sandbox.rpc_url) as rpc:
        assets = await _two_mints(sandbox, rpc)
    listed = web.get(f"{sandbox.base_url}/agents", params={"query": "Minted Agent"}).json()
    assert sorted(a["mintAddress"] for a in listed["data"]["agents"]) == sorted(assets)


async def _two_mints(sandbox, rpc) -> list[str]:
    wallet = await funded_keypair(rpc, sol=1)
    answers = [
        web.post(f"{sandbox.base_url}/agents/mint", json=mint_body(wallet.pubkey())).json()
        for _ in range(2)
    ]
    assets = [a["assetAddress"] for a in answers]
    assert all(a["success"] for a in answers) and len(set(assets)) == 2
    url = f"{sandbox.base_url}/agents/{assets[0]}"
    assert web.get(url).status_code == 404  # not before it is confirmed

    await send_all(rpc, [base64.b64decode(a["tx"]) for a in answers], wallet)
    for asset in assets:
        record = web.get(f"{sandbox.base_url}/agents/{asset}").json()
        assert record["success"] and record["data"]["authority"] == str(wallet.pubkey())
        metadata = record["data"]["metadata"]
        assert metadata["registrations"][0]["agentId"] == asset
        assert any(s["name"] == "A2A" for s in metadata["services"])
        card = web.get(f"{sandbox.base_url}/agents/{asset}/agent-card.json")
        assert card.status_code == 200 and card.json()["name"] == "Minted Agent"
    listed = web.get(f"{sandbox.base_url}/agents", params={"query": "Minted Agent"})
    assert set(assets) <= {a["mintAddress"] for a in listed.json()["data"]["agents"]}
    withdraw = web.post(
        f"{sandbox.base_url}/agents/{assets[0]}/withdraw",
        json={"sender": str(wallet.pubkey()), "amount": 0.1},
    )
    assert withdraw.status_code == 200  # owned by the wallet
    return assets


def test_a_bad_mint_is_400_in_the_success_envelope(sandbox):
    body = mint_body(Keypair().pubkey(), collectionAddress=str(Keypair().pubkey()))
    answer = web.post(f"{sandbox.base_url}/agents/mint", json=body)
    assert answer.status_code == 400 and answer.json()["success"] is False
    assert answer.json()["error"].startswith("Collection not found")
    bad = web.post(f"{sandbox.base_url}/agents/mint", json={**body, "network": None})
    assert bad.status_code == 400 and bad.json()["error"] == "Invalid input data"


# ── the admin buy ───────────────────────────────────────────────────────────


async def test_a_buy_needs_a_landed_curve(sandbox, client, rpc):
    def status_of(body: dict) -> int:
        return web.post(f"{sandbox.url}/_sandbox/buy", json=body).status_code

    creator = await funded_keypair(rpc)
    pool = launch_pool(creator)
    genesis = await launched(client, rpc, creator, pool)
    assert status_of({"genesisAddress": genesis, "lamports": 10**9}) == 404  # not a curve
    created = await client.create_launch(creator.pubkey(), curve_config(creator.pubkey()))
    unsent = str(created.genesis_account)
    assert status_of({"genesisAddress": unsent, "lamports": 10**9}) == 400  # not landed
    for bad in ({"genesisAddress": "x", "lamports": 1}, {"genesisAddress": unsent, "lamports": 0}):
        assert status_of(bad) == 400
    assert status_of({"genesisAddress": unsent, "lamports": 10**9, "extra": 1}) == 400


def launch_pool(creator: Keypair) -> LaunchConfig:
    launch = ex.launchpool_launch()
    launch["publicKey"] = str(creator.pubkey())
    return LaunchConfig.model_validate(launch)


async def test_fees_and_a_pending_mint_survive_a_restart(sandbox_factory, tmp_path):
    first = sandbox_factory(data_dir=tmp_path)
    async with (
        AsyncServiceClient(first.base_url, retry=RetryPolicy(attempts=1)) as client,
        AsyncClient(first.rpc_url) as rpc,
    ):
        creator = await funded_keypair(rpc)
        genesis = await launched(client, rpc, creator, curve_config(creator.pubkey()))
        buy(first, genesis, 10**9)
        mint = web.post(f"{first.base_url}/agents/mint", json=mint_body(creator.pubkey())).json()
    first.stop()
    again = sandbox_factory(data_dir=tmp_path)
    async with AsyncClient(again.rpc_url) as rpc:
        await send_all(rpc, [base64.b64decode(mint["tx"])], creator)
        assert web.get(f"{again.base_url}/agents/{mint['assetAddress']}").status_code == 200
        data = claim(again, creator.pubkey()).json()["data"]
        before = await lamports_of(rpc, creator.pubkey())
        await send_all(rpc, [base64.b64decode(t) for t in data["transactions"]], creator)
        assert await lamports_of(rpc, creator.pubkey()) - before == 6_000_000 - 5_000
    assert claim(again, creator.pubkey()).status_code == 400
