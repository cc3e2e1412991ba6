"""Register carries what the public client sends: the creator's wallet, the Twitter
verification token from the launch file (never logged or journaled; read again from the
file by a register in another process), the agent, and the create body again."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx

import launchops.web as web
from launchops.pipeline.runner import run_launch, run_step, validate
from launchops.states import LaunchState, Step
from tests.support.pipeline import context_for, write_launch

TOKEN = "tvt-0123456789-abcdef"


def verified_launch(folder: Path, monkeypatch, key: str, handle: str) -> Path:
    """A presale launch file with a Twitter handle, its verification token read from the
    environment (set here), never written in the file."""
    monkeypatch.setenv("TWITTER_TOKEN", TOKEN)
    return write_launch(
        folder,
        form="presale",
        key=key,
        externalLinks={"twitter": handle},
        twitterVerificationToken="${TWITTER_TOKEN}",
    )


def kept(sandbox, genesis: str) -> dict:
    return web.get(f"{sandbox.url}/_sandbox/registrations/{genesis}").json()


async def test_register_sends_the_creator_and_the_token(sandbox_factory, tmp_path, monkeypatch):
    sandbox = sandbox_factory()
    path = verified_launch(tmp_path, monkeypatch, "verified", "@verified")
    sent: list[dict] = []

    async def capture(request: httpx.Request) -> None:
        if request.url.path.endswith("/launches/register"):
            sent.append(json.loads(request.content))

    async with context_for(sandbox, tmp_path) as ctx:
        client = ctx.client
        client._http.event_hooks["request"].append(capture)
        record = await run_launch(ctx, (await validate(ctx, path)).key)
        journal = (tmp_path / "sandbox" / "journal.db").read_bytes()
    assert record.state == "registered", record.last_error
    found = kept(sandbox, record.genesis)
    assert found["creatorWallet"] == str(ctx.wallet) and found["agent"] is None
    assert found["twitterVerified"] is True
    assert found["twitterTokenSha256"] == hashlib.sha256(TOKEN.encode()).hexdigest()
    [body] = sent
    assert set(body) == {
        "genesisAccount",
        "network",
        "creatorWallet",
        "twitterVerificationToken",
        "wallet",
        "buildAllTx",
        "launch",
    }
    assert body["wallet"] == body["creatorWallet"] == body["launch"]["publicKey"]
    assert TOKEN.encode() not in journal
    assert record.launch_order.secrets == ("twitterVerificationToken",)


async def test_a_register_elsewhere_reads_the_token_again(sandbox_factory, tmp_path, monkeypatch):
    sandbox = sandbox_factory()
    path = verified_launch(tmp_path, monkeypatch, "verified-later", "@later")
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, path)).key
        for step in (Step.CREATE, Step.SIGN, Step.SUBMIT, Step.CONFIRM):
            await run_step(step, ctx, key)
        assert (await ctx.journal.get(key)).state is LaunchState.CONFIRMED
    async with context_for(sandbox, tmp_path) as ctx:  # the registration retry, say
        await run_step(Step.REGISTER, ctx, key)
        record = await ctx.journal.get(key)
    assert record.state == "registered", record.last_error
    assert (
        kept(sandbox, record.genesis)["twitterTokenSha256"]
        == hashlib.sha256(TOKEN.encode()).hexdigest()
    )


async def test_a_launch_without_a_token_registers_without_one(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path) as ctx:
        record = await run_launch(
            ctx, (await validate(ctx, write_launch(tmp_path, form="presale", key="plain"))).key
        )
    found = kept(sandbox, record.genesis)
    assert (found["twitterVerified"], found["twitterTokenSha256"]) == (False, None)
    assert found["creatorWallet"] == str(ctx.wallet)
    assert record.config == record.launch_order.launch  # kept as journals always kept it


def test_the_token_never_shows_in_a_repr():
    from launchops.api.models import RegisterLaunchRequest
    from launchops.config.secrets import LaunchSecrets
    from tests.api import examples as ex

    body = RegisterLaunchRequest.model_validate(
        {
            "genesisAccount": ex.WALLET,
            "launch": ex.launchpool_launch(),
            "twitterVerificationToken": TOKEN,
        }
    )
    assert body.twitter_verification_token == TOKEN and TOKEN not in repr(body)
    secrets = LaunchSecrets(twitter_token=TOKEN)
    assert repr(secrets) == "LaunchSecrets(twitterVerificationToken)" and TOKEN not in str(secrets)
