"""The client against a real HTTP server on loopback (a scripted service: tests/api/conftest.py):
every endpoint's call as the spec spells it, and the sync and blocking facades. Its
errors, retries and malformed answers: test_client_errors.py."""

from __future__ import annotations

from decimal import Decimal

import pytest

from launchops.api import errors as e
from launchops.api.client import USER_AGENT, ServiceClient
from tests.api import examples as ex
from tests.support.scripted import FAST, Answer

# ── success paths ───────────────────────────────────────────────────────────


async def test_list_agents_sends_every_filter_as_the_spec_spells_it(client, service):
    service.script(
        "GET",
        "agents",
        Answer(body=ex.agents_page([ex.AGENT_RECORD], page=2, page_size=10, total=11)),
    )
    page = await client.list_agents(
        network="solana-devnet",
        page=2,
        page_size=10,
        query="research",
        sort="oldest",
        active_only=True,
        has_agent_token=False,
        has_services=True,
        spotlight=True,
    )
    assert page.total == 11 and page.total_pages == 2
    assert str(page.agents[0].mint_address) == ex.AGENT
    [seen] = service.calls("GET", "agents")
    assert seen.query == {
        "network": "solana-devnet",
        "page": "2",
        "pageSize": "10",
        "query": "research",
        "sort": "oldest",
        "activeOnly": "true",
        "hasAgentToken": "false",
        "hasServices": "true",
        "spotlight": "true",
    }
    assert seen.headers["user-agent"] == USER_AGENT


async def test_iter_agents_walks_every_page(client, service):
    records = []
    for i in range(5):
        record = ex.copy_of(ex.AGENT_RECORD)
        record["name"] = f"agent {i}"
        records.append(record)
    service.script(
        "GET",
        "agents",
        Answer(body=ex.agents_page(records[0:2], page=1, page_size=2, total=5)),
        Answer(body=ex.agents_page(records[2:4], page=2, page_size=2, total=5)),
        Answer(body=ex.agents_page(records[4:5], page=3, page_size=2, total=5)),
    )
    names = [a.name async for a in client.iter_agents(page_size=2, active_only=True)]
    assert names == [f"agent {i}" for i in range(5)]
    assert [s.query["page"] for s in service.calls("GET", "agents")] == ["1", "2", "3"]


async def test_agent_card_uses_its_etag_and_the_304(client, service):
    path = f"agents/{ex.AGENT}/agent-card.json"
    headers = {"ETag": '"m3k9x1"', "Cache-Control": "max-age=60, stale-while-revalidate=600"}
    service.script("GET", path, Answer(body=ex.AGENT_CARD, headers=headers), Answer(status=304))
    first = await client.get_agent_card(ex.AGENT)
    second = await client.get_agent_card(ex.AGENT)
    assert first == second
    assert first.name == "Research Agent" and first.skills[0].tags == ["research"]
    assert first.model_extra["protocolVersion"] == "0.3.0"
    calls = service.calls("GET", path)
    assert "if-none-match" not in calls[0].headers
    assert calls[1].headers["if-none-match"] == '"m3k9x1"'


async def test_fund_and_withdraw_build_transactions(client, service):
    service.script("POST", f"agents/{ex.AGENT}/fund", Answer(body=ex.FUND_RESPONSE))
    service.script("POST", f"agents/{ex.AGENT}/withdraw", Answer(body=ex.FUND_RESPONSE))
    fund = await client.build_fund_tx(ex.AGENT, sender=ex.WALLET, amount="0.25", memo="thanks")
    withdraw = await client.build_withdraw_tx(ex.AGENT, sender=ex.WALLET, amount=Decimal("1.5"))
    assert fund.tx == bytes(range(200)) and withdraw.blockhash.last_valid_block_height == 312345678
    assert service.calls("POST", f"agents/{ex.AGENT}/fund")[0].body == {
        "sender": ex.WALLET,
        "amount": 0.25,
        "memo": "thanks",
        "network": "solana-mainnet",
    }
    assert service.calls("POST", f"agents/{ex.AGENT}/withdraw")[0].body["amount"] == 1.5


async def test_create_and_register_a_launch(client, service):
    service.script("POST", "launches/create", Answer(body=ex.CREATE_RESPONSE))
    service.script("POST", "launches/register", Answer(body=ex.REGISTER_RESPONSE))
    created = await client.create_launch(ex.WALLET, ex.launchpool_config())
    assert len(created.transactions) == 2 and str(created.genesis_account) == ex.GENESIS
    registered = await client.register_launch(created.genesis_account, ex.launchpool_config())
    assert registered.existing is True and registered.launch.link.startswith("https://")
    create_body = service.calls("POST", "launches/create")[0].body
    register_body = service.calls("POST", "launches/register")[0].body
    assert create_body["wallet"] == ex.WALLET
    assert register_body["launch"] == create_body["launch"]  # must equal what create got
    assert register_body["genesisAccount"] == ex.GENESIS
    assert register_body["network"] == "solana-mainnet"


async def test_token_lookup(client, service):
    service.script("GET", f"tokens/{ex.MINT}", Answer(body=ex.TOKEN_RESPONSE))
    token = await client.get_token(ex.MINT, network="solana-devnet")
    assert token.base_token.symbol == "MTK" and token.launches[0].status == "graduated"
    assert token.socials.discord == "https://discord.gg/mytoken"
    assert service.calls("GET", f"tokens/{ex.MINT}")[0].query == {"network": "solana-devnet"}


# ── the sync facade ───────────────────────────────────────────────────────────


def test_sync_facade_runs_the_same_calls(service):
    service.answers.clear()
    service.seen.clear()
    service.script(
        "GET",
        "agents",
        Answer(body=ex.agents_page([ex.AGENT_RECORD], page_size=1, total=2)),
        Answer(body=ex.agents_page([ex.AGENT_RECORD], page=2, page_size=1, total=2)),
    )
    service.script("GET", f"tokens/{ex.MINT}", Answer(body=ex.TOKEN_RESPONSE))
    with ServiceClient(service.url, retry=FAST) as c:
        assert len(list(c.iter_agents(page_size=1))) == 2
        assert c.get_token(ex.MINT).base_token.symbol == "MTK"
        with pytest.raises(e.ServiceError):
            c.get_token(ex.MINT)  # unscripted now: 599
    peers = {s.headers.get("host") for s in service.seen}
    assert len(peers) == 1


async def test_the_blocking_client_works_inside_a_running_event_loop(sandbox):
    """As in a notebook: a loop is running, and the blocking facade still answers (on a
    private loop of its own), its errors raised as from the async client."""
    import asyncio

    asyncio.get_running_loop()  # this test body runs inside one
    with ServiceClient(sandbox.base_url) as client:
        page = client.list_agents(page_size=5)
        assert page.page == 1 and page.total >= 0
        with pytest.raises(e.APIStatusError):
            client.get_token(ex.MINT)  # not a token of this sandbox: 404
