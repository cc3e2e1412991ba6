"""The smaller faults of the same family: a key that runs dry between a launch's
transactions, a batch folder holding a symlink that loops and a FIFO, two processes
opening a new SQLite journal at once, a timeout's error line, and a refused health probe
at start-up."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import re
import subprocess
import sys
import time

from solders.keypair import Keypair
from solders.message import MessageV0
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

import launchops.web as web
from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcUnavailable
from launchops.pipeline.batch import run_batch
from launchops.pipeline.runner import run_launch, validate
from launchops.retries import RetryPolicy
from tests.support import forks
from tests.support.pipeline import (
    ROOT,
    context_for,
    land_first,
    launchops,
    profile_env,
    set_faults,
    stats,
    write_launch,
)

SOL = 10**9


def _key_file(folder, keypair: Keypair) -> str:
    path = folder / "creator.json"
    path.write_text(json.dumps(list(bytes(keypair))))
    os.chmod(path, 0o600)
    return f"file:{path}"


def _airdrop(sandbox, key, lamports: int = 2 * SOL) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "requestAirdrop", "params": [str(key), lamports]}
    assert "result" in web.post(sandbox.rpc_url, json=body, timeout=30).json()


async def _drain(ctx, keypair: Keypair) -> None:
    """Move every lamport of `keypair` away (its account then no longer exists)."""
    balance = await ctx.rpc.balance(keypair.pubkey())
    blockhash, _ = await ctx.rpc.latest_blockhash()
    move = transfer(
        TransferParams(
            from_pubkey=keypair.pubkey(), to_pubkey=Keypair().pubkey(), lamports=balance - 5000
        )
    )
    message = MessageV0.try_compile(keypair.pubkey(), [move], [], blockhash)
    signature = await ctx.rpc.send(
        bytes(VersionedTransaction(message, [keypair])), skip_preflight=False
    )
    for _ in range(200):
        [landing] = await ctx.rpc.statuses([signature])
        if landing is not None and landing.reached("confirmed"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the drain did not land")


async def test_a_key_that_runs_dry_between_transactions_resumes_once_funded(sandbox, tmp_path):
    """The first transaction landed, the key was emptied, the second is refused for funds:
    the launch stays `submitting` with what to do (not needs_attention), and once the key is
    funded the same command finishes it, one mint."""
    keypair = Keypair()
    _airdrop(sandbox, keypair.pubkey())
    source = _key_file(tmp_path, keypair)
    created_before = stats(sandbox)["launches"]["created"]
    async with context_for(sandbox, tmp_path, keypair=source) as ctx:
        key = (await validate(ctx, write_launch(tmp_path, key="runs-dry"))).key
        await land_first(ctx, key)
        await _drain(ctx, keypair)
        try:
            await run_launch(ctx, key)
        except RpcUnavailable as exc:  # pragma: no cover - the failure to explain
            raise AssertionError(exc) from exc
        except Exception as exc:
            assert "has no SOL" in str(exc), exc
        else:
            raise AssertionError("the refused transaction did not end the run")
        record = await ctx.journal.get(key)
        assert record.state == "submitting", record.state
        assert re.search(r"transaction 2 of \d+ refused", record.last_error), record.last_error
        assert f"the key {keypair.pubkey()} has no SOL" in record.last_error
    _airdrop(sandbox, keypair.pubkey())
    async with context_for(sandbox, tmp_path, keypair=source) as ctx:  # the same command again
        record = await run_launch(ctx, key)
    assert record.state == "registered", record.last_error
    assert record.attempt == 1
    assert stats(sandbox)["launches"]["created"] == created_before + 1


def test_a_symlink_that_loops_and_a_fifo_in_a_batch_folder_are_named(sandbox, tmp_path):
    folder = tmp_path / "launches"
    write_launch(folder, "good.yaml", key="next-to-odd-files")
    (folder / "loop.yaml").symlink_to(folder / "loop.yaml")
    os.mkfifo(folder / "pipe.yaml")
    env = profile_env(sandbox, tmp_path / "home")
    done = launchops(env, "batch", str(folder), "--no-prefect", "--json", timeout=120)
    assert done.returncode == 1, done.stderr
    rows = {os.path.basename(r["file"]): r for r in json.loads(done.stdout)["launches"]}
    assert rows["good.yaml"]["state"] == "registered"
    assert rows["loop.yaml"]["state"] == "invalid"
    assert "Too many levels of symbolic links" in rows["loop.yaml"]["error"]
    assert rows["pipe.yaml"]["state"] == "invalid"
    assert "a FIFO or socket, not a file" in rows["pipe.yaml"]["error"]


def test_processes_opening_a_new_sqlite_journal_together_all_open_it(tmp_path):
    for round_ in range(8):
        url = f"sqlite:///{tmp_path / f'round-{round_}' / 'journal.db'}"
        started = [
            forks.popen(
                [sys.executable, "-m", "tests.support.open_journal", url],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        for process in started:
            _, err = process.communicate(timeout=60)
            assert process.returncode == 0, err[-2000:]


async def test_a_timeout_says_how_long_it_waited():
    """A node that accepts and never answers: the error line says what happened."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    rpc = ChainRpc(f"http://127.0.0.1:{port}", timeout=0.3, retry=RetryPolicy(attempts=1))
    try:
        try:
            await rpc.block_height()
        except RpcUnavailable as exc:
            text = str(exc)
        else:
            raise AssertionError("no error")
    finally:
        await rpc.close()
        server.close()
    assert text == f"RPC http://127.0.0.1:{port}: no answer within 0.3 s (ReadTimeout)"


async def test_a_pubsub_that_never_shakes_hands_is_given_up_once_for_all(sandbox_factory, tmp_path):
    """Its port takes the connection and never completes the handshake: the launches in
    flight wait for one attempt together (not one each), three at most in a run, and the
    batch lands by polling, no blockhash lost to the wait."""
    sandbox = sandbox_factory(slot_ms=50)
    folder = tmp_path / "launches"
    for n in range(16):
        write_launch(folder, f"p-{n}.yaml", key=f"pubsub-hang-{n}", symbol=f"P{n}")
    set_faults(sandbox, pubsub_hang=1.0)
    started = time.monotonic()
    async with context_for(sandbox, tmp_path, concurrency=16) as ctx:
        rows = await asyncio.wait_for(run_batch(ctx, sorted(folder.glob("*.yaml"))), 120)
    seconds = time.monotonic() - started
    assert [str(r.state) for r in rows] == ["registered"] * 16
    seen = stats(sandbox)
    assert 1 <= seen["refused"].get("PubSub pubsub_hang", 0) <= 3, seen["refused"]
    assert seen["launches"]["created"] == 16  # no create again for a blockhash lost waiting
    assert seconds < 30, seconds


async def test_a_cdns_page_for_the_service_is_asked_again_and_never_shown(
    sandbox_factory, tmp_path
):
    """HTTP 200 with a CDN's browser check for as many creates and registers in a row as
    one launch could retry short of giving up (drawn at random, one launch could be handed
    all of them and end `validated` on a page: a fault the policy is not for, ~1 % of runs):
    every launch lands and registers once; no row shows a page."""
    from launchops.retries import REGISTER_CALLS, SERVICE_CALLS

    sandbox = sandbox_factory(slot_ms=50)
    folder = tmp_path / "launches"
    for n in range(6):
        write_launch(folder, f"c-{n}.yaml", key=f"cdn-{n}", symbol=f"C{n}")
    pages = {
        "cdn_challenge@POST /v1/launches/create": SERVICE_CALLS.attempts - 1,
        "cdn_challenge@POST /v1/launches/register": REGISTER_CALLS.attempts - 1,
    }
    set_faults(sandbox, api_fault_next=pages)
    async with context_for(sandbox, tmp_path) as ctx:
        rows = await asyncio.wait_for(run_batch(ctx, sorted(folder.glob("*.yaml"))), 120)
    assert [str(r.state) for r in rows] == ["registered"] * 6, [(r.state, r.error) for r in rows]
    seen = stats(sandbox)
    refused = sum(v for k, v in seen["refused"].items() if k.endswith("cdn_challenge"))
    assert refused == sum(pages.values()), seen["refused"]
    assert seen["launches"]["mintsOnChain"] == 6 and seen["launches"]["registered"] == 6


def test_a_proxys_error_page_is_one_line_in_stderr_and_the_reports(sandbox, tmp_path):
    """The service behind a proxy answering its 502 page (CRLF and all) for good: the
    command's error is one line, and neither the JSON nor the CSV report holds the page."""
    set_faults(sandbox, api_fault_next={"http_502_html@POST /v1/launches/create": 1000})
    try:
        folder = tmp_path / "launches"
        write_launch(folder, "proxied.yaml", key="behind-a-proxy")
        env = profile_env(sandbox, tmp_path / "home", LAUNCHOPS_SERVICE_CALL_SECONDS="3")
        done = launchops(env, "batch", str(folder), "--no-prefect", "--json", timeout=120)
    finally:
        set_faults(sandbox, api_fault_next={})
    assert done.returncode == 1
    result = json.loads(done.stdout)
    [row] = result["launches"]
    assert "502 Bad Gateway: an HTML page" in row["error"]
    with open(result["reports"]["csv"], newline="") as report:
        [cell] = [row["error"] for row in csv.DictReader(report)]
    with open(result["reports"]["json"]) as report:
        [kept] = [row["error"] for row in json.load(report)["launches"]]
    for error in (cell, kept):
        assert "<" not in error and "\r" not in error and "\n" not in error, error
    assert "<html" not in done.stderr and "Traceback" not in done.stderr


def test_one_refused_health_probe_does_not_start_a_second_sandbox(sandbox, tmp_path):
    """The sandbox profile asks whether its sandbox runs; one refused probe (a 500) is
    asked again, not taken for an absence (which found the port taken)."""
    from launchops.pipeline.embedded import start_embedded_sandbox
    from tests.support.pipeline import profile_for

    profile = profile_for(sandbox, tmp_path, embedded_sandbox=True)
    set_faults(sandbox, fail_next={"getHealth": 1})
    assert start_embedded_sandbox(profile) is None  # it runs: nothing started
