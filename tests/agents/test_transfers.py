"""Funds and withdraws against the sandbox: checked before signing, journaled, resumable,
never paid twice; every error of the spec; a funding list; the card cache on disk."""

from __future__ import annotations

import base64
import json
import sys

import httpx
import pytest
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.api import programs as p
from launchops.api.client import AsyncServiceClient
from launchops.api.errors import InvalidInputError
from launchops.chain.checks import TransactionRefused, check_withdraw
from launchops.pipeline.runner import run_launch
from launchops.pipeline.transfers import begin_transfer
from tests.support import forks
from tests.support.pipeline import (
    advance,
    context_for,
    launchops,
    profile_env,
    seed_agent,
    stats,
)


@pytest.fixture
def chain(sandbox_factory):
    return sandbox_factory(seed_agents=3, seed=6)


def agents(sandbox) -> list[dict]:
    return web.get(f"{sandbox.base_url}/agents").json()["data"]["agents"]


async def balance(ctx, key) -> int:
    return await ctx.rpc.balance(key)


async def test_a_fund_lands_exactly_once(chain, tmp_path):
    agent = agents(chain)[0]
    wallet = p.agent_wallet(
        __import__("solders.pubkey", fromlist=["Pubkey"]).Pubkey.from_string(agent["mintAddress"])
    )
    async with context_for(chain, tmp_path) as ctx:
        before = await balance(ctx, wallet)
        record = await begin_transfer(
            ctx, "fund", agent=agent["mintAddress"], amount="0.123456789", memo="compute"
        )
        done = await run_launch(ctx, record.key)
        assert done.state == "confirmed" and done.attempt == 1
        assert await balance(ctx, wallet) - before == 123_456_789
        again = await begin_transfer(
            ctx, "fund", agent=agent["mintAddress"], amount="0.123456789", memo="compute"
        )
        assert again.key == record.key and (await run_launch(ctx, again.key)).state == "confirmed"
        assert await balance(ctx, wallet) - before == 123_456_789  # not paid twice
        on_purpose = await begin_transfer(
            ctx,
            "fund",
            agent=agent["mintAddress"],
            amount="0.123456789",
            memo="compute",
            given_id="second",
        )
        await run_launch(ctx, on_purpose.key)
        assert await balance(ctx, wallet) - before == 2 * 123_456_789
        landed = await ctx.rpc.client.get_transaction(
            __import__("solders.signature", fromlist=["Signature"]).Signature.from_string(
                str(done.current.signatures[0])
            ),
            encoding="base64",
        )
        assert f"Program {p.MEMO_PROGRAM} success" in landed.value.transaction.meta.log_messages


class Tampering(httpx.AsyncBaseTransport):
    """The real sandbox answers; the fund transaction is swapped for one paying someone else."""

    def __init__(self, thief) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.thief = thief

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if not request.url.path.endswith("/fund"):
            return response
        await response.aread()
        body = json.loads(response.content)
        real = VersionedTransaction.from_bytes(base64.b64decode(body["tx"]))
        sender = real.message.account_keys[0]
        ix = transfer(TransferParams(from_pubkey=sender, to_pubkey=self.thief, lamports=10**9))
        message = MessageV0.try_compile(
            sender,
            [
                ix,
                *[__import__("launchops.api.programs", fromlist=["memo"]).memo("compute", sender)],
            ],
            [],
            real.message.recent_blockhash,
        )
        body["tx"] = base64.b64encode(
            bytes(VersionedTransaction.populate(message, list(real.signatures)))
        ).decode()
        return httpx.Response(200, json=body)


async def test_a_tampered_fund_is_refused_before_signing(chain, tmp_path):
    agent = agents(chain)[0]
    thief = Keypair().pubkey()
    async with context_for(chain, tmp_path) as ctx:
        await ctx.client.aclose()
        ctx.client = AsyncServiceClient(chain.base_url, transport=Tampering(thief))
        record = await begin_transfer(
            ctx, "fund", agent=agent["mintAddress"], amount="1", memo="compute"
        )
        done = await run_launch(ctx, record.key)
        await ctx.client.aclose()
    assert done.state == "refused"  # nothing signed: for a person
    assert f"to {thief}" in done.last_error and "not from" in done.last_error
    assert done.current.signed is None  # never signed
    assert stats(chain)["rpc"].get("sendTransaction", 0) == 0


async def test_withdraw_paths(chain, tmp_path):
    async with context_for(chain, tmp_path) as ctx:
        owned = seed_agent(chain, ctx.wallet)
        funded = await begin_transfer(ctx, "fund", agent=owned, amount="1", memo="to withdraw")
        assert (await run_launch(ctx, funded.key)).state == "confirmed"
        wallet = p.agent_wallet(Pubkey.from_string(owned))
        held = await ctx.rpc.balance(wallet)
        record = await begin_transfer(ctx, "withdraw", agent=owned, amount="0.5")
        done = await run_launch(ctx, record.key)
        # mpl-core does not run here: the sandbox plays its Execute, as it plays rewards.
        assert done.state == "confirmed", done.last_error
        assert await ctx.rpc.balance(wallet) == held - 500_000_000
        too_much = await begin_transfer(ctx, "withdraw", agent=owned, amount="2")
        short = await run_launch(ctx, too_much.key)
        assert short.state in ("failed", "needs_attention") and short.current.signed is not None
        someone_elses = next(a["mintAddress"] for a in agents(chain) if a["mintAddress"] != owned)
        others = await begin_transfer(ctx, "withdraw", agent=someone_elses, amount="0.5")
        refused = await run_launch(ctx, others.key)
        assert (
            refused.state == "failed"
            and "403 Only the agent owner can withdraw funds" in refused.last_error
        )
        missing = await begin_transfer(
            ctx, "fund", agent=str(Keypair().pubkey()), amount="1", memo="m"
        )
        assert "404 Agent not found" in (await run_launch(ctx, missing.key)).last_error
        with pytest.raises(InvalidInputError) as caught:
            await begin_transfer(ctx, "fund", agent="not-a-key", amount="0.0000000001", memo="")
        assert {f for f, _ in caught.value.problems} == {"agent", "amount", "memo"}


async def test_an_expired_fund_is_built_again(chain, tmp_path):
    from launchops.pipeline.runner import run_step
    from launchops.states import Step

    agent = agents(chain)[1]
    async with context_for(chain, tmp_path) as ctx:
        record = await begin_transfer(
            ctx, "fund", agent=agent["mintAddress"], amount="0.01", memo="late"
        )
        await run_step(Step.CREATE, ctx, record.key)
        await run_step(Step.SIGN, ctx, record.key)
        advance(chain, 160)
        done = await run_launch(ctx, record.key)
    assert done.state == "confirmed" and done.attempt == 2
    assert stats(chain)["api"]["POST /v1/agents/{address}/fund"] == 2


def test_check_withdraw_refuses_each_tampering():
    owner, agent = Keypair().pubkey(), Keypair().pubkey()
    wallet = p.agent_wallet(agent)
    inner = transfer(TransferParams(from_pubkey=wallet, to_pubkey=owner, lamports=5))
    good = p.execute(agent, owner, owner, inner, None)

    def tx(ix):
        return VersionedTransaction.populate(
            MessageV0.try_compile(
                owner, [ix], [], __import__("solders.hash", fromlist=["Hash"]).Hash.default()
            ),
            [__import__("solders.signature", fromlist=["Signature"]).Signature.default()],
        )

    check_withdraw(tx(good), agent=agent, sender=owner, lamports=5)
    with pytest.raises(TransactionRefused, match="moves 5 lamports, not 6"):
        check_withdraw(tx(good), agent=agent, sender=owner, lamports=6)
    elsewhere = p.execute(
        agent,
        owner,
        owner,
        transfer(TransferParams(from_pubkey=wallet, to_pubkey=Keypair().pubkey(), lamports=5)),
        None,
    )
    with pytest.raises(TransactionRefused, match="not to"):
        check_withdraw(tx(elsewhere), agent=agent, sender=owner, lamports=5)
    with pytest.raises(TransactionRefused, match="another asset"):
        check_withdraw(tx(good), agent=Keypair().pubkey(), sender=owner, lamports=5)


def test_funding_list_and_cli(chain, tmp_path):
    env = profile_env(chain, tmp_path / "home")
    first, second = agents(chain)[:2]
    listing = tmp_path / "funding.csv"
    listing.write_text(
        f"agent,amount,memo\n{first['mintAddress']},0.25,a\n{second['mintAddress']},0.5,b\n"
        f"{Keypair().pubkey()},1,nobody\n"
    )

    def run(*args):
        return forks.run(
            [sys.executable, "-m", "launchops.cli", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    result = run("agents", "fund-batch", str(listing), "--no-prefect", "--json")
    assert result.returncode == 1, result.stderr[-1500:]
    report = json.loads(result.stdout)
    assert report["counts"] == {"confirmed": 2, "failed": 1}
    assert [row["fromJournal"] for row in report["launches"]] == [False] * 3
    paid = [row for row in report["launches"] if row["state"] == "confirmed"]
    assert all(row["agent"] and row["amount"] and row["signature"] for row in paid)
    assert all("launchPage" in row and "launch_page" not in row for row in report["launches"])
    again = json.loads(run("agents", "fund-batch", str(listing), "--no-prefect", "--json").stdout)
    assert again["counts"] == {"confirmed": 2, "failed": 1}
    assert stats(chain)["rpc"]["sendTransaction"] == 2  # re-running paid nobody twice
    # the two paid before are said so; the failed one was tried again
    assert [row["fromJournal"] for row in again["launches"]] == [True, True, False]
    single = run(
        "agents", "fund", first["mintAddress"], "--amount", "0.1", "--memo", "cli", "--json"
    )
    assert single.returncode == 0 and json.loads(single.stdout)["state"] == "confirmed"
    card = ["agents", "card", first["mintAddress"], "--base-url", chain.base_url, "--json"]
    assert json.loads(run(*card).stdout)["name"] == first["name"]
    assert json.loads(run(*card).stdout)["name"] == first["name"]
    assert (tmp_path / "home" / "card-cache.json").exists()


def test_a_fund_run_again_says_it_was_sent_and_a_new_id_or_memo_pays_again(chain, tmp_path):
    """The docs' fund run twice: the second answers from the journal with the first's
    signature, says so (`fromJournal` in --json) and sends nothing; what the docs give to
    pay the same agent again on purpose (a new --id, another memo) pays again."""
    env = profile_env(chain, tmp_path / "home")
    agent = agents(chain)[0]["mintAddress"]
    fund = ["agents", "fund", agent, "--amount", "0.25", "--memo", "compute for May"]
    first = launchops(env, *fund, "--json")
    assert first.returncode == 0, first.stderr
    paid = json.loads(first.stdout)
    assert paid["state"] == "confirmed" and paid["fromJournal"] is False, paid
    [signature] = paid["signatures"]
    again = launchops(env, *fund)
    assert again.returncode == 0, again.stderr
    said = f"already sent, from the journal: {signature[:6]}…{signature[-6:]} (nothing was"
    assert again.stdout.startswith(said), again.stdout
    assert json.loads(launchops(env, *fund, "--json").stdout) == {**paid, "fromJournal": True}
    assert stats(chain)["rpc"]["sendTransaction"] == 1
    new_id = launchops(env, *fund, "--id", "compute-for-may-2", "--json")
    other_memo = [*fund[:-1], "compute for May, second half", "--json"]
    for result in (new_id, launchops(env, *other_memo)):
        assert result.returncode == 0, result.stderr
        answer = json.loads(result.stdout)
        assert not answer["fromJournal"] and answer["signatures"] != [signature], answer
    assert stats(chain)["rpc"]["sendTransaction"] == 3


async def test_the_funding_flow_through_prefect(chain, tmp_path, monkeypatch, prefect_server):
    from launchops.flows.funding import funding_flow

    for name, value in profile_env(chain, tmp_path / "home").items():
        if name.startswith("LAUNCHOPS_"):
            monkeypatch.setenv(name, value)
    first, second = agents(chain)[:2]
    listing = tmp_path / "funding.yaml"
    listing.write_text(
        f"transfers:\n  - {{agent: {first['mintAddress']}, amount: '0.2', memo: one}}\n"
        f"  - {{agent: {second['mintAddress']}, amount: '0.3', memo: two, id: second-fund}}\n"
    )
    result = (await funding_flow(path=str(listing), concurrency=2)).to_json()
    assert result["counts"] == {"confirmed": 2}
    assert {row["key"] for row in result["launches"]} >= {"second-fund"}
