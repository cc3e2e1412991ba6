"""Exactly once against a chain that lies: the four ways the promise broke (issue 26),
each as a user met it, through the plain driver and, for the first two, through Prefect.

1. a node on a minority fork says the creates' transactions failed at `processed`;
2. a node without transaction history, after a run killed right after its first send;
3. answers that are another request's (swapped, or carrying another id);
4. an RPC gone for good (blackholed, or answering every call 429 Retry-After 45).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter

import pytest

import launchops.web as web
from launchops.pipeline.batch import run_batch
from tests.support.pipeline import (
    advance,
    aim_flows_at,
    context_for,
    launchops,
    profile_env,
    set_faults,
    stats,
    write_launch,
)

LAUNCHES = 8
POLLING = {"ws_url": "none", "poll_seconds": 0.05}


def _folder(tmp_path, prefix: str, count: int = LAUNCHES):
    folder = tmp_path / "launches"
    for n in range(count):
        write_launch(folder, f"{prefix}-{n}.yaml", key=f"{prefix}-{n}", symbol=f"L{n}")
    return folder


def _once_each(sandbox, count: int = LAUNCHES) -> None:
    launches = stats(sandbox)["launches"]
    assert launches["created"] == count, launches  # nothing created twice
    assert launches["mintsOnChain"] == count and launches["registered"] == count, launches


def _one_mint_each(sandbox, count: int) -> None:
    """One mint on chain per launch, every launch registered. A create again is allowed:
    a run cut between a create and its landing leaves a create that expires, and the
    re-run creates again once nothing of it can land; never a second mint."""
    launches = stats(sandbox)["launches"]
    assert launches["mintsOnChain"] == count and launches["registered"] == count, launches
    creates = web.get(f"{sandbox.url}/_sandbox/launches").json()["launches"]
    landed = Counter(create["symbol"] for create in creates if create["mintOnChain"])
    assert len(landed) == count and set(landed.values()) == {1}, landed


# ── 1. a failure at processed ───────────────────────────────────────────────


async def test_a_failure_at_processed_is_not_taken(sandbox_factory, tmp_path):
    """A third of the status answers say every transaction in flight failed at
    `processed` (first and later ones alike): every launch lands once, nothing failed."""
    # A blockhash lives 15 s: a Genesis create's 3 to 5 sends fit on a loaded machine.
    sandbox = sandbox_factory(slot_ms=100)
    folder = _folder(tmp_path, "fork-lie")
    set_faults(
        sandbox,
        rpc_faults={"failed_processed@getSignatureStatuses": 0.35},
        rpc_fault_next={"failed_processed@getSignatureStatuses": 2},
    )
    async with context_for(sandbox, tmp_path, **POLLING) as ctx:
        rows = await asyncio.wait_for(run_batch(ctx, sorted(folder.glob("*.yaml"))), 120)
    assert [str(r.state) for r in rows] == ["registered"] * LAUNCHES, [
        (r.state, r.error) for r in rows
    ]
    assert stats(sandbox)["refused"].get("getSignatureStatuses failed_processed", 0) > 0
    _once_each(sandbox)


async def test_a_failure_at_processed_is_not_taken_through_prefect(
    sandbox_factory, tmp_path, monkeypatch, prefect_server
):
    from launchops.flows.batch import batch_flow

    # A blockhash lives 15 s: a Genesis create's 3 to 5 sends fit on a loaded machine.
    sandbox = sandbox_factory(slot_ms=100)
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home", LAUNCHOPS_WS_URL="none")
    folder = _folder(tmp_path, "fork-lie-flow")
    set_faults(
        sandbox,
        rpc_faults={"failed_processed@getSignatureStatuses": 0.35},
        rpc_fault_next={"failed_processed@getSignatureStatuses": 2},
    )
    result = await asyncio.wait_for(batch_flow(paths=[str(folder)]), 180)
    assert result.counts == {"registered": LAUNCHES}, result
    _once_each(sandbox)


# ── 2. a node without history after a kill ──────────────────────────────────


@pytest.mark.parametrize("driver", ["--no-prefect", "prefect"])
def test_a_node_without_history_after_a_kill_finishes_the_launch(
    sandbox_factory, tmp_path, driver, request
):
    """Killed right after its first send; run again once its blockhash is dead and the
    node has forgotten the transaction (its status reads null): the mint on chain proves
    it landed, the rest is re-signed and sent, the launch registered, one mint."""
    sandbox = sandbox_factory()
    extra = request.getfixturevalue("prefect_env") if driver == "prefect" else {}
    env = profile_env(sandbox, tmp_path / "home", LAUNCHOPS_WS_URL="none", **extra)
    path = write_launch(tmp_path / "launches", key="forgotten")
    flags = ["--no-prefect"] if driver == "--no-prefect" else []
    killed = launchops(
        env, "launch", str(path), *flags, kill="submit: first transaction sent, not journaled"
    )
    assert killed.returncode == -9, killed.stderr
    set_faults(sandbox, rpc_faults={"no_history": 1.0})
    advance(sandbox, 400)  # the blockhash dies; the node keeps 150 slots of history
    started = time.monotonic()
    again = launchops(env, "launch", str(path), *flags, "--json", timeout=180)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["state"] == "registered"
    assert time.monotonic() - started < 120
    assert stats(sandbox)["refused"].get("getSignatureStatuses no_history", 0) > 0
    _once_each(sandbox, 1)


# ── 3. another request's answer ─────────────────────────────────────────────


async def test_another_requests_answer_is_never_taken(sandbox_factory, tmp_path):
    """30 % of status answers are the last answer served to another request, and some
    reads carry another id: each is asked again, nothing recorded from it."""
    sandbox = sandbox_factory(slot_ms=50)
    folder = _folder(tmp_path, "swapped")
    set_faults(
        sandbox,
        rpc_faults={"swapped@getSignatureStatuses": 0.3, "wrong_id": 0.05, "swapped": 0.05},
        rpc_fault_next={"swapped@getSignatureStatuses": 2},
    )
    async with context_for(sandbox, tmp_path, **POLLING) as ctx:
        rows = await asyncio.wait_for(run_batch(ctx, sorted(folder.glob("*.yaml"))), 120)
    assert [str(r.state) for r in rows] == ["registered"] * LAUNCHES, [
        (r.state, r.error) for r in rows
    ]
    refused = stats(sandbox)["refused"]
    assert refused.get("getSignatureStatuses swapped", 0) > 0
    _once_each(sandbox)


# ── 4. an RPC gone for good ─────────────────────────────────────────────────


@pytest.mark.parametrize("gone", ["blackhole", "rate_limited"])
def test_an_rpc_gone_for_good_ends_the_batch_in_one_line(sandbox_factory, tmp_path, gone):
    """The RPC stops answering (or answers every call 429, Retry-After 45) once a batch has
    begun creating: it ends within its bound, exit 1, one line naming the RPC and what to do, the
    report written, every launch where the same command continues it."""
    sandbox = sandbox_factory(slot_ms=50)
    folder = _folder(tmp_path, f"gone-{gone}", 4)
    env = profile_env(
        sandbox,
        tmp_path / "home",
        LAUNCHOPS_RPC_CALL_SECONDS="8",
        LAUNCHOPS_TIMEOUT_SECONDS="3",
        LAUNCHOPS_CONCURRENCY="2",
    )

    async def take_it_away() -> None:  # once the batch has created (however slow the host)
        while stats(sandbox)["launches"]["created"] < 1:
            await asyncio.sleep(0.05)
        await asyncio.to_thread(set_faults, sandbox, rpc_faults={gone: 1.0})

    async def run() -> tuple:
        started = time.monotonic()
        away = asyncio.create_task(take_it_away())
        done = await asyncio.to_thread(
            launchops, env, "batch", str(folder), "--no-prefect", "--json", timeout=180
        )
        await away
        return done, time.monotonic() - started

    done, seconds = asyncio.run(run())
    assert done.returncode == 1, done.stdout + done.stderr
    assert seconds < 60, seconds
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and sandbox.rpc_url in errors[0], done.stderr
    assert "Traceback" not in done.stderr and "run the same command again" in errors[0]
    result = json.loads(done.stdout)
    assert result["stopped"] and not result["ok"]
    assert all(r["state"] != "invalid" for r in result["launches"])

    set_faults(sandbox, rpc_faults={})
    again = launchops(env, "batch", str(folder), "--no-prefect", "--json", timeout=180)
    assert again.returncode == 0, again.stdout + again.stderr
    assert {r["state"] for r in json.loads(again.stdout)["launches"]} == {"registered"}
    _one_mint_each(sandbox, 4)
