"""The sandbox's agent endpoints through the launchops client over real HTTP: the list's
filters and pages, the wallet PDA, the agent card's cache headers, funding and withdrawing
with their on-chain effects read over JSON-RPC, and each refusal in the spec's envelope."""

from __future__ import annotations

import pytest
from solders.keypair import Keypair
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.api import errors as e
from launchops.api import programs as p
from tests.api import examples as ex
from tests.support.pipeline import seed_agent
from tests.support.solana import funded_keypair, send_all

# ── agents ──────────────────────────────────────────────────────────────────


async def test_list_agents_filters_sorts_and_pages(client):
    everyone = [a async for a in client.iter_agents(page_size=7)]
    assert len(everyone) == 30 and len({a.mint_address for a in everyone}) == 30
    latest = await client.list_agents(page_size=100)
    assert [a.created_at for a in latest.agents] == sorted(
        (a.created_at for a in latest.agents), reverse=True
    )
    oldest = await client.list_agents(page_size=100, sort="oldest")
    assert oldest.agents == list(reversed(latest.agents))
    page = await client.list_agents(page=2, page_size=7)
    assert (page.page, page.page_size, page.total, page.total_pages) == (2, 7, 30, 5)
    assert page.agents == latest.agents[7:14]
    active = await client.list_agents(page_size=100, active_only=True)
    assert active.total == sum(a.is_active for a in everyone) and all(
        a.is_active for a in active.agents
    )
    tokened = await client.list_agents(page_size=100, has_agent_token=True)
    assert tokened.agents and all(a.agent_token for a in tokened.agents)
    services = await client.list_agents(page_size=100, has_services=True)
    assert all(a.metadata["services"] for a in services.agents)
    spotlit = await client.list_agents(page_size=100, spotlight=True)
    assert all(a.spotlighted_at for a in spotlit.agents)
    word = everyone[0].name.split()[0]
    found = await client.list_agents(page_size=100, query=word.lower())
    assert found.agents and all(word in a.name for a in found.agents)
    devnet = await client.list_agents(network="solana-devnet")
    assert devnet.total == 0


async def test_agents_wallet_is_the_asset_signer_pda(client):
    agent = (await client.list_agents(page_size=1)).agents[0]
    assert agent.wallet_address == p.agent_wallet(agent.mint_address)
    assert agent.metadata["registrations"][0]["agentRegistry"] == "solana:101:metaplex"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"pageSize": "101"}, "pageSize"),
        ({"pageSize": "0"}, "pageSize"),
        ({"page": "0"}, "page"),
        ({"page": "1000001"}, "page"),
        ({"page": "9" * 5000}, "page"),
        ({"sort": "newest"}, "sort"),
        ({"activeOnly": "yes"}, "activeOnly"),
        ({"network": "solana-testnet"}, "network"),
    ],
)
def test_a_bad_agents_query_is_400_in_the_envelope(sandbox, query, field):
    answer = web.get(f"{sandbox.base_url}/agents", params=query)
    assert answer.status_code == 400
    body = answer.json()
    assert body["success"] is False and body["error"] == "Invalid input data"
    assert body["details"][0]["path"] == [field]


def test_agent_card_etag_cache_control_and_304(sandbox):
    agent = web.get(f"{sandbox.base_url}/agents", params={"pageSize": 1}).json()["data"]["agents"][
        0
    ]
    url = f"{sandbox.base_url}/agents/{agent['mintAddress']}/agent-card.json"
    first = web.get(url)
    assert first.status_code == 200 and first.json() == agent["a2aCard"]
    assert first.headers["Cache-Control"] == "max-age=60, stale-while-revalidate=600"
    etag = first.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    again = web.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    stale = web.get(url, headers={"If-None-Match": '"other"'})
    assert stale.status_code == 200


async def test_agent_card_through_the_client_cache(client, sandbox):
    agent = (await client.list_agents(page_size=1)).agents[0]
    before = (
        web.get(f"{sandbox.url}/_sandbox/stats")
        .json()["api"]
        .get("GET /v1/agents/{address}/agent-card.json", 0)
    )
    card = await client.get_agent_card(agent.mint_address)
    assert await client.get_agent_card(agent.mint_address) == card
    after = web.get(f"{sandbox.url}/_sandbox/stats").json()["api"][
        "GET /v1/agents/{address}/agent-card.json"
    ]
    assert after - before == 2
    assert client.card_cache.get(f"solana-mainnet:{agent.mint_address}") is not None


async def test_agent_card_404(client):
    with pytest.raises(e.NotFoundError):
        await client.get_agent_card(Keypair().pubkey())


async def test_fund_lands_on_the_agents_wallet(client, rpc):
    agent = (await client.list_agents(page_size=1)).agents[0]
    sender = await funded_keypair(rpc)
    before = (await rpc.get_balance(agent.wallet_address)).value
    built = await client.build_fund_tx(
        agent.mint_address, sender=sender.pubkey(), amount="0.123456789", memo="for compute"
    )
    tx = VersionedTransaction.from_bytes(built.tx)
    program_ids = [tx.message.account_keys[ix.program_id_index] for ix in tx.message.instructions]
    assert program_ids == [p.SYSTEM_PROGRAM, p.MEMO_PROGRAM]
    assert tx.message.recent_blockhash == built.blockhash.blockhash
    [signature] = await send_all(rpc, [built.tx], sender)
    after = (await rpc.get_balance(agent.wallet_address)).value
    assert after - before == 123_456_789
    landed = await rpc.get_transaction(signature, encoding="base64")
    logs = landed.value.transaction.meta.log_messages
    assert f"Program {p.MEMO_PROGRAM} success" in logs, logs
    assert bytes(tx.message.instructions[1].data) == b"for compute"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"sender": "not-a-key", "amount": 1, "memo": "m"}, "sender"),
        ({"sender": ex.WALLET, "amount": 0, "memo": "m"}, "amount"),
        ({"sender": ex.WALLET, "amount": -2, "memo": "m"}, "amount"),
        ({"sender": ex.WALLET, "amount": "1e999999999", "memo": "m"}, "amount"),
        ({"sender": ex.WALLET, "amount": "1e-999999999", "memo": "m"}, "amount"),
        ({"sender": ex.WALLET, "amount": 1}, "memo"),
        ({"sender": ex.WALLET, "amount": 1, "memo": ""}, "memo"),
        ({"sender": ex.WALLET, "amount": 1, "memo": "m" * 257}, "memo"),
    ],
)
def test_fund_400_invalid_input_data(sandbox, body, field):
    agent = web.get(f"{sandbox.base_url}/agents").json()["data"]["agents"][0]
    answer = web.post(f"{sandbox.base_url}/agents/{agent['mintAddress']}/fund", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"] == "Invalid input data"
    assert [d["path"] for d in answer.json()["details"]] == [[field]]


async def test_fund_404_and_bad_address(client, sandbox):
    with pytest.raises(e.NotFoundError) as caught:
        await client.build_fund_tx(Keypair().pubkey(), sender=ex.WALLET, amount=1, memo="m")
    assert caught.value.error == "Agent not found"
    answer = web.post(
        f"{sandbox.base_url}/agents/not-base58!/fund",
        json={"sender": ex.WALLET, "amount": 1, "memo": "m"},
    )
    assert answer.status_code == 400 and answer.json()["details"][0]["path"] == ["address"]


async def test_withdraw_checks_ownership_on_chain(client, sandbox):
    owner = Keypair()
    asset = seed_agent(sandbox, owner.pubkey())
    with pytest.raises(e.ForbiddenError) as caught:
        await client.build_withdraw_tx(asset, sender=Keypair().pubkey(), amount=1)
    assert caught.value.error == "Only the agent owner can withdraw funds"
    with pytest.raises(e.NotFoundError):
        await client.build_withdraw_tx(Keypair().pubkey(), sender=owner.pubkey(), amount=1)
    with pytest.raises(e.BadRequestError):
        await client.build_withdraw_tx("bad address", sender=owner.pubkey(), amount=1)
    built = await client.build_withdraw_tx(asset, sender=owner.pubkey(), amount="0.5")
    # mpl-core does not run in LiteSVM: check the Execute instruction byte by byte instead.
    message = VersionedTransaction.from_bytes(built.tx).message
    [ix] = message.instructions
    keys = message.account_keys
    assert keys[ix.program_id_index] == p.MPL_CORE_PROGRAM
    data = bytes(ix.data)
    assert data[0] == p.EXECUTE_DISCRIMINATOR
    inner = data[5:]
    assert int.from_bytes(data[1:5], "little") == len(inner) == 12
    assert (
        inner[:4] == (2).to_bytes(4, "little")
        and int.from_bytes(inner[4:], "little") == 500_000_000
    )
    named = [keys[i] for i in ix.accounts]
    assert named[0].__str__() == asset and named[2] == p.agent_wallet(named[0])
    assert named[3] == owner.pubkey() and named[4] == owner.pubkey()
    assert named[-1] == owner.pubkey()  # the destination is always the sender
    assert keys[: message.header.num_required_signatures] == [owner.pubkey()]


def test_withdraw_400_on_bad_body(sandbox):
    agent = web.get(f"{sandbox.base_url}/agents").json()["data"]["agents"][0]
    answer = web.post(
        f"{sandbox.base_url}/agents/{agent['mintAddress']}/withdraw",
        json={"sender": ex.WALLET, "amount": "lots"},
    )
    assert answer.status_code == 400 and answer.json()["error"] == "Invalid input data"
