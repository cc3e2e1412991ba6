"""The client's errors against a scripted service on loopback: every status of the spec's
section 7, the retry rules, timeouts and malformed answers."""

from __future__ import annotations

import time
from typing import Any

import pytest

from launchops.api import errors as e
from launchops.api.client import AsyncServiceClient, RetryPolicy
from launchops.sandbox.process import free_port
from tests.api import examples as ex
from tests.support.loopback import serve
from tests.support.scripted import FAST, Answer, ScriptedService

# ── section 7, row by row ─────────────────────────────────────────────────────

INVALID = {
    "success": False,
    "error": "Invalid input data",
    "details": [{"path": ["sender"], "message": "bad key"}],
}


def failed(endpoint: str, status: int, error: type, message: str) -> tuple[Any, ...]:
    """A row whose answer is the spec's `{success: false, error}` body: the error raised
    carries its message."""
    return (endpoint, status, {"success": False, "error": message}, error, message)


VALIDATION = {
    "success": False,
    "error": "Validation failed",
    "details": [{"path": ["launch", "symbol"], "message": "too long"}],
}
ROWS = [
    ("card", 404, {"message": "no card"}, e.NotFoundError, "no card"),
    ("card", 404, None, e.NotFoundError, "Not Found"),
    ("fund", 400, INVALID, e.BadRequestError, "Invalid input data"),
    failed("fund", 404, e.NotFoundError, "Agent not found"),
    failed("fund", 500, e.ServerError, "Failed to prepare fund transaction"),
    ("withdraw", 400, INVALID, e.BadRequestError, "Invalid input data"),
    failed("withdraw", 403, e.ForbiddenError, "Only the agent owner can withdraw funds"),
    failed("withdraw", 404, e.NotFoundError, "Agent not found"),
    failed("withdraw", 500, e.ServerError, "Failed to prepare withdraw transaction"),
    ("create", 400, VALIDATION, e.BadRequestError, "Validation failed"),
    failed("create", 500, e.ServerError, "Internal server error"),
    failed("register", 400, e.BadRequestError, "Genesis account not found on-chain"),
    failed("register", 500, e.ServerError, "Internal server error"),
    ("token", 404, ex.READ_ERROR, e.NotFoundError, "Token not found"),
]
CALLS = {
    "card": ("GET", f"agents/{ex.AGENT}/agent-card.json", lambda c: c.get_agent_card(ex.AGENT)),
    "fund": (
        "POST",
        f"agents/{ex.AGENT}/fund",
        lambda c: c.build_fund_tx(ex.AGENT, sender=ex.WALLET, amount=1, memo="m"),
    ),
    "withdraw": (
        "POST",
        f"agents/{ex.AGENT}/withdraw",
        lambda c: c.build_withdraw_tx(ex.AGENT, sender=ex.WALLET, amount=1),
    ),
    "create": (
        "POST",
        "launches/create",
        lambda c: c.create_launch(ex.WALLET, ex.launchpool_config()),
    ),
    "register": (
        "POST",
        "launches/register",
        lambda c: c.register_launch(ex.GENESIS, ex.launchpool_config()),
    ),
    "token": ("GET", f"tokens/{ex.MINT}", lambda c: c.get_token(ex.MINT)),
}


@pytest.mark.parametrize(("endpoint", "status", "body", "error", "text"), ROWS)
async def test_section_7_statuses_raise_typed_errors(
    client, service, endpoint, status, body, error, text
):
    method, path, call = CALLS[endpoint]
    raw = b"Not Found" if body is None else None
    service.script(method, path, sticky=Answer(status=status, body=body, raw=raw))
    with pytest.raises(error) as caught:
        await call(client)
    assert caught.value.status == status
    assert caught.value.error == text
    if status >= 500:  # the service failed: the client asks again, then says it did
        assert caught.value.transient is True and caught.value.retried is True
        assert len(service.calls(method, path)) == FAST.attempts
    else:
        assert caught.value.transient is False and caught.value.retried is False
        assert len(service.calls(method, path)) == 1, "a refusal is never repeated"
    if body and body.get("details"):
        assert caught.value.details == body["details"]
        assert body["details"][0]["message"] in str(caught.value)


# ── retries ───────────────────────────────────────────────────────────────────


async def test_429_waits_for_retry_after_then_succeeds(client, service):
    service.script(
        "GET",
        f"tokens/{ex.MINT}",
        Answer(
            status=429,
            body={"error": {"message": "Too many requests"}},
            headers={"Retry-After": "0.3"},
        ),
        Answer(body=ex.TOKEN_RESPONSE),
    )
    started = time.monotonic()
    token = await client.get_token(ex.MINT)
    assert token.base_token.name == "My Token"
    assert time.monotonic() - started >= 0.3
    assert len(service.calls("GET", f"tokens/{ex.MINT}")) == 2


@pytest.mark.parametrize("status", [502, 503, 504])
async def test_register_is_retried_on_gateway_errors(client, service, status):
    service.script(
        "POST",
        "launches/register",
        Answer(status=status, body={"success": False, "error": "busy"}),
        Answer(body=ex.REGISTER_RESPONSE),
    )
    registered = await client.register_launch(ex.GENESIS, ex.launchpool_config())
    assert registered.token.id == "tok_3x9"
    assert len(service.calls("POST", "launches/register")) == 2


async def test_a_create_whose_answer_was_lost_is_asked_again(client, service):
    # Unsigned, the first launch can never land: asking again is safe.
    service.script(
        "POST",
        "launches/create",
        Answer(status=503, body={"success": False, "error": "busy"}),
        Answer(body=ex.CREATE_RESPONSE),
    )
    created = await client.create_launch(ex.WALLET, ex.launchpool_config())
    assert str(created.genesis_account) == ex.CREATE_RESPONSE["genesisAccount"]
    assert len(service.calls("POST", "launches/create")) == 2


async def test_retries_stop_after_the_policys_attempts(client, service):
    service.script(
        "GET", "agents", sticky=Answer(status=502, body={"success": False, "error": "bad gateway"})
    )
    with pytest.raises(e.ServerError) as caught:
        await client.list_agents()
    assert caught.value.status == 502
    assert len(service.calls("GET", "agents")) == FAST.attempts


async def test_rate_limited_error_carries_retry_after():
    policy = RetryPolicy(attempts=1)
    scripted = ScriptedService()
    scripted.script(
        "GET",
        "agents",
        Answer(
            status=429, body={"success": False, "error": "slow down"}, headers={"Retry-After": "7"}
        ),
    )
    with serve(scripted.app) as url:
        async with AsyncServiceClient(url + "/v1", retry=policy) as c:
            with pytest.raises(e.RateLimitedError) as caught:
                await c.list_agents()
    assert caught.value.retry_after == 7.0 and caught.value.transient


# ── transport failures and malformed answers ──────────────────────────────────


async def test_nobody_listening_is_a_network_error():
    port = free_port()  # below the ephemeral range: no sandbox on port 0 takes it meanwhile
    async with AsyncServiceClient(f"http://127.0.0.1:{port}/v1", retry=FAST) as c:
        with pytest.raises(e.NetworkError) as caught:
            await c.get_token(ex.MINT)
    assert caught.value.transient and "ConnectError" in str(caught.value)


async def test_a_slow_answer_is_a_timeout(service):
    service.script("GET", "agents", sticky=Answer(body=ex.agents_page([]), delay=1.0))
    async with AsyncServiceClient(
        service.url, retry=RetryPolicy(attempts=2, initial_wait=0.01), timeout=0.2
    ) as c:
        with pytest.raises(e.RequestTimeoutError):
            await c.list_agents()
    assert len(service.calls("GET", "agents")) >= 2


async def test_an_answer_that_is_not_json_is_asked_again_and_never_shown(client, service):
    """HTTP 200 with a CDN's page (its browser check): not the service's answer, so asked
    again (every call is safe to repeat); the error says what it was, never its text."""
    page = b"<!DOCTYPE html>\r\n<html>\r\n<title>Just a moment...</title>\r\n</html>\r\n"
    service.script("GET", f"tokens/{ex.MINT}", sticky=Answer(raw=page))
    with pytest.raises(e.NotJsonError) as caught:
        await client.get_token(ex.MINT)
    assert caught.value.transient and caught.value.retried
    assert len(service.calls("GET", f"tokens/{ex.MINT}")) == FAST.attempts
    assert str(caught.value) == (
        "200 OK: an HTML page, not the service's JSON (a proxy or CDN answered)"
    )


async def test_an_error_page_is_one_line_without_its_html(client, service):
    page = b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body></body>\r\n</html>\r\n"
    service.script("GET", "agents", sticky=Answer(status=502, raw=page))
    with pytest.raises(e.ServerError) as caught:
        await client.list_agents()
    assert str(caught.value) == (
        "502 Bad Gateway: an HTML page, not the service's JSON (a proxy or CDN answered)"
    )


async def test_an_answer_off_the_contract_names_the_field(client, service):
    bad = ex.copy_of(ex.CREATE_RESPONSE)
    bad["mintAddress"] = "not-a-key"
    service.script("POST", "launches/create", Answer(body=bad))
    with pytest.raises(e.UnexpectedResponseError, match="mintAddress: must be a base58 public key"):
        await client.create_launch(ex.WALLET, ex.launchpool_config())


async def test_success_false_with_200_is_an_error(client, service):
    service.script(
        "POST", f"agents/{ex.AGENT}/fund", Answer(body={"success": False, "error": "nope"})
    )
    with pytest.raises(e.UnexpectedResponseError, match="nope"):
        await client.build_fund_tx(ex.AGENT, sender=ex.WALLET, amount=1, memo="m")


async def test_bad_input_is_refused_before_sending(client, service):
    with pytest.raises(e.InvalidInputError) as caught:
        await client.build_fund_tx(ex.AGENT, sender="0OIl", amount=-1, memo="")
    fields = [field for field, _ in caught.value.problems]
    assert fields == ["sender", "amount", "memo"]
    assert service.seen == []
