"""The launch pipeline against the sandbox over real HTTP and JSON-RPC: every config form,
failures injected at each step then resumed, blockhash expiry with nothing landed and
after a partial landing, register failures, idempotence, leases, and the Prefect flow."""

from __future__ import annotations

import asyncio
import base64
import dataclasses

import pytest

from launchops.api.errors import ServerError
from launchops.errors import LeaseHeld, RpcGone
from launchops.journal.records import Send
from launchops.journal.store import JournalError
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.runner import run_launch, run_step, summary, validate
from launchops.retries import SERVICE_CALLS
from launchops.states import LaunchState, Step
from tests.support.pipeline import (
    advance,
    aim_flows_at,
    context_for,
    killed_after_first,
    land_first,
    quick_waits,
    set_faults,
    stats,
    write_launch,
)

ORDER = ["create", "sign", "submit", "confirm", "register"]


@pytest.fixture
def chain(sandbox_factory):
    return sandbox_factory()


async def launch(ctx: LaunchContext, path) -> str:
    record = await run_launch(ctx, (await validate(ctx, path)).key)
    assert record.state == "registered", (record.last_error, record.error_details)
    return record.key


def assert_once(sandbox, launches: int = 1) -> None:
    counts = stats(sandbox)["launches"]
    assert counts["registered"] == launches, counts
    assert counts["mintsOnChain"] == launches, counts


@pytest.mark.parametrize("form", ["launchpool", "presale", "raw"])
async def test_a_full_launch_for_each_form(chain, tmp_path, form):
    async with context_for(chain, tmp_path) as ctx:
        key = await launch(ctx, write_launch(tmp_path, form=form))
        record = await ctx.journal.get(key)
        result = summary(ctx.profile, record)
        token = await ctx.client.get_token(record.mint, network=record.network)
    assert result["launchPage"] and result["mint"] == record.mint and len(result["signatures"]) >= 2
    assert str(token.launches[0].genesis_address) == record.genesis
    assert_once(chain)


async def test_a_finished_launch_is_reported_not_rerun(chain, tmp_path):
    path = write_launch(tmp_path, key="once")
    async with context_for(chain, tmp_path) as ctx:
        await launch(ctx, path)
        before = stats(chain)["api"]
        again = await run_launch(ctx, (await validate(ctx, path)).key)
    assert again.state == "registered"
    after = stats(chain)["api"]
    assert after.get("POST /v1/launches/create") == before.get("POST /v1/launches/create") == 1
    assert after.get("POST /v1/launches/register") == before.get("POST /v1/launches/register") == 1


@pytest.mark.parametrize("stop_after", ORDER[:-1])
async def test_a_crash_after_each_step_resumes_where_it_stopped(chain, tmp_path, stop_after):
    path = write_launch(tmp_path, key=f"crash-{stop_after}")
    async with context_for(chain, tmp_path, lease_seconds=0.2) as ctx:
        key = (await validate(ctx, path)).key
        for name in ORDER[: ORDER.index(stop_after) + 1]:
            await run_step(Step(name), ctx, key)
    await asyncio.sleep(0.3)  # the crashed worker's lease runs out
    async with context_for(chain, tmp_path) as ctx:  # a new process, the same journal
        record = await run_launch(ctx, key)
        assert record.state == "registered" and record.attempt == 1
    assert_once(chain)


async def test_create_failing_then_resumed(chain, tmp_path):
    path = write_launch(tmp_path, key="create-500")
    set_faults(chain, fail_next={"POST /v1/launches/create": SERVICE_CALLS.attempts})
    async with context_for(chain, tmp_path) as ctx:
        key = (await validate(ctx, path)).key
        with pytest.raises(ServerError) as failed:  # a 500 at every attempt: asked 6 times
            await run_launch(ctx, key)
        assert failed.value.retried
        assert (await ctx.journal.get(key)).state == "validated"
    async with context_for(chain, tmp_path) as ctx:  # the same command again
        record = await run_launch(ctx, key)
    assert record.state == "registered"
    assert_once(chain)


async def test_an_rpc_outage_during_submit_then_resumed(chain, tmp_path):
    path = write_launch(tmp_path, key="rpc-down")
    async with context_for(chain, tmp_path, rpc_call_seconds=5) as ctx:
        key = (await validate(ctx, path)).key
        await run_step(Step.CREATE, ctx, key)
        await run_step(Step.SIGN, ctx, key)
        set_faults(chain, rpc_error_rate=1.0, error_status=503)
        with pytest.raises(RpcGone):  # nothing usable for the call deadline: gone for the run
            await run_launch(ctx, key)
        assert (await ctx.journal.get(key)).state in ("signed", "submitting")
    set_faults(chain, rpc_error_rate=0.0)
    async with context_for(chain, tmp_path) as ctx:  # the same command again
        record = await run_launch(ctx, key)
    assert record.state == "registered"
    assert_once(chain)


async def test_register_500_then_success(chain, tmp_path):
    set_faults(chain, fail_next={"POST /v1/launches/register": 2})
    async with context_for(chain, tmp_path) as ctx:
        await launch(ctx, write_launch(tmp_path, key="reg-500"))
    assert stats(chain)["api"]["POST /v1/launches/register"] == 3
    assert_once(chain)


async def test_register_400_leaves_register_failed_then_retry_registers(chain, tmp_path):
    set_faults(chain, fail_status=400, fail_next={"POST /v1/launches/register": 1})
    async with context_for(chain, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="reg-400"))).key
        record = await run_launch(ctx, key)
        assert record.state == "register_failed"
        assert "400" in record.last_error and record.error_details
        await run_step(Step.REGISTER, ctx, key)  # what the registration retry does
        assert (await ctx.journal.get(key)).state == "registered"
    assert_once(chain)


async def test_register_repeated_answers_existing(chain, tmp_path):
    async with context_for(chain, tmp_path) as ctx:
        key = await launch(ctx, write_launch(tmp_path, key="again"))
        record = await ctx.journal.get(key)
        from launchops.api.models import LaunchConfig

        answer = await ctx.client.register_launch(
            record.genesis, LaunchConfig.model_validate(record.config)
        )
    assert answer.existing is True and answer.launch.id == record.registered.launch_id
    assert_once(chain)


async def test_expiry_with_nothing_landed_creates_once_more(chain, tmp_path):
    async with context_for(chain, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="expire-0"))).key
        await run_step(Step.CREATE, ctx, key)
        await run_step(Step.SIGN, ctx, key)
        advance(chain, 160)  # the blockhash is dead before anything is sent
        record = await run_launch(ctx, key)
    assert record.state == "registered" and record.attempt == 2
    assert [a.outcome for a in record.attempts] == ["expired", None]
    counts = stats(chain)["launches"]
    assert counts["created"] == 2 and counts["mintsOnChain"] == 1 and counts["registered"] == 1


async def test_a_forced_expiry_is_detected_and_created_again(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=20)
    set_faults(sandbox, expire_next=2)  # the first two creates get a blockhash about to die
    async with context_for(sandbox, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="forced-expiry"))).key
        record = await run_launch(ctx, key)
    assert record.state == "registered" and record.attempt == 3
    assert [a.outcome for a in record.attempts] == ["expired", "expired", None]
    counts = stats(sandbox)["launches"]
    assert counts["created"] == 3 and counts["mintsOnChain"] == 1 and counts["registered"] == 1
    assert stats(sandbox)["chain"]["transactions"] >= 2


async def test_expiry_after_a_partial_landing_re_signs_the_tail(chain, tmp_path):
    async with context_for(chain, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="expire-tail"))).key
        attempt = await killed_after_first(ctx, key)
        advance(chain, 160)
        record = await run_launch(ctx, key)
    assert record.state == "registered" and record.attempt == 1  # no second create
    tail = record.current.sends[1]
    assert tail.replaced == (attempt.signatures[1],) and tail.signature != attempt.signatures[1]
    assert_once(chain)
    assert stats(chain)["launches"]["created"] == 1


async def test_a_tail_that_needs_the_services_signature_goes_to_needs_attention(chain, tmp_path):
    from solders.keypair import Keypair
    from solders.message import MessageV0
    from solders.transaction import VersionedTransaction

    from launchops.api import programs

    async with context_for(chain, tmp_path) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="attention"))).key
        attempt = await land_first(ctx, key)
        # A tail the service co-signed (a key we stand in for), on the same blockhash,
        # not sent before that blockhash died: only a new create could replace it.
        service = Keypair()
        memo = programs.memo("co-signed", ctx.wallet)
        memo.accounts = [*memo.accounts, type(memo.accounts[0])(service.pubkey(), True, False)]
        message = MessageV0.try_compile(ctx.wallet, [memo], [], attempt.created.blockhash)
        tail = VersionedTransaction(message, [ctx.keypair, service])
        tail_signature = tail.signatures[0]
        sends = [Send(attempt.signatures[0], sent=True), Send(tail_signature, sent=True)]
        async with ctx.holding(key):
            await ctx.journal.record_sends(
                key,
                attempt.number,
                sends,
                state=LaunchState.SUBMITTING,
                signed=[attempt.signed[0], bytes(tail)],
            )
        advance(chain, 160)
        record = await run_launch(ctx, key)
    assert record.state == "needs_attention"
    [report] = record.error_details
    assert report["landed"] == [str(attempt.signatures[0])]
    assert report["notLanded"] == [str(tail_signature)]
    assert report["mint"] == str(attempt.created.mint)
    assert "need the service's signatures" in record.last_error
    assert stats(chain)["launches"]["registered"] == 0


async def test_a_lease_keeps_a_second_worker_off(chain, tmp_path):
    path = write_launch(tmp_path, key="leased")
    async with context_for(chain, tmp_path) as first, context_for(chain, tmp_path) as second:
        key = (await validate(first, path)).key
        assert await first.acquire(key)
        with pytest.raises(LeaseHeld, match="is being worked by"):
            await run_launch(second, key)
        await first.release(key)
        assert (await run_launch(second, key)).state == "registered"


async def test_a_changed_file_under_a_used_key_is_refused(chain, tmp_path):
    async with context_for(chain, tmp_path) as ctx:
        await launch(ctx, write_launch(tmp_path, key="fixed"))
        changed = write_launch(tmp_path, "changed.yaml", key="fixed", symbol="OTHER")
        with pytest.raises(JournalError, match="different configuration"):
            await validate(ctx, changed)


async def test_the_journal_never_holds_the_secret_key(chain, tmp_path):
    async with context_for(chain, tmp_path) as ctx:
        await launch(ctx, write_launch(tmp_path, key="secret"))
        secret = bytes(ctx.keypair)
    raw = (tmp_path / "sandbox" / "journal.db").read_bytes()
    for form in (secret, secret[:32], base64.b64encode(secret), str(list(secret)).encode()):
        assert form not in raw


async def test_the_prefect_flow_runs_the_same_steps(chain, tmp_path, monkeypatch, prefect_server):
    from launchops.flows.launch import launch_flow

    aim_flows_at(monkeypatch, chain, tmp_path)
    path = write_launch(tmp_path, key="by-prefect")
    result = await launch_flow(path=str(path))
    assert result.state == "registered" and result.launch_page
    again = await launch_flow(key="by-prefect")
    assert again.from_journal and not result.from_journal  # reported, nothing done
    assert dataclasses.replace(again, from_journal=False) == result
    assert_once(chain)


async def test_prefect_retries_a_step_only_on_what_nothing_beneath_retried(prefect_server):
    from launchops.tasks.options import STEP_TASK
    from prefect import flow, task

    from launchops.api.errors import APIStatusError

    calls: list[int] = []

    def failing(status: int, retried: bool):
        @task(**{**STEP_TASK, "retry_delay_seconds": 0})
        async def step() -> str:
            calls.append(status)
            if len(calls) == 1:
                error = APIStatusError(status, "refused")
                error.retried = retried
                raise error
            return "done"

        return step

    @flow
    async def run(status: int, retried: bool = False) -> str:
        return await failing(status, retried)()

    assert await run(503) == "done" and calls == [503, 503]  # transient, not retried yet
    for status, retried in ((400, False), (503, True)):  # a refusal; retried beneath already
        calls.clear()
        with pytest.raises(APIStatusError):
            await run(status, retried)
        assert calls == [status]


async def test_a_register_failing_for_good_is_asked_eight_times_a_run(
    chain, tmp_path, monkeypatch, prefect_server
):
    """Register answering 503 for good: the client's eight attempts, nothing above them
    (this was 4 x 6 x 3 = 72 POSTs through Prefect, 24 in-process). The count is the
    rule; the waits between the attempts (half a minute a run) are cut to milliseconds.
    The flow's launch landed: its result says so (state, mint, the error), in a failed run."""
    from launchops.flows.launch import launch_flow
    from launchops.flows.outcome import result_of

    quick_waits(monkeypatch, "REGISTER_CALLS")
    forever = {"POST /v1/launches/register": 1000}
    set_faults(chain, fail_status=503, fail_next=forever)
    async with context_for(chain, tmp_path) as ctx:
        with pytest.raises(ServerError) as caught:
            await run_launch(ctx, (await validate(ctx, write_launch(tmp_path, key="plain"))).key)
        assert caught.value.retried and (await ctx.journal.get("plain")).state == "confirmed"
    assert stats(chain)["api"]["POST /v1/launches/register"] == 8
    aim_flows_at(monkeypatch, chain, tmp_path)
    path = str(write_launch(tmp_path, "p.yaml", key="through-prefect"))
    state = await launch_flow(path=path, return_state=True)
    result = await result_of(state)  # landed: the flow answers the live token, not the error
    assert state.is_failed() and result.state == "confirmed" and result.mint, result
    assert "503" in (result.error or ""), result
    assert stats(chain)["api"]["POST /v1/launches/register"] == 16
