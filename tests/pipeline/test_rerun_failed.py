"""A failed launch runs again when asked again: a key short of SOL, then funded, then the
same command, as a user runs it (`launchops ... --no-prefect` in a child process)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from solders.keypair import Keypair

import launchops.web as web
from launchops.journal.store import Journal
from tests.support.pipeline import launchops, profile_env, write_launch

SOL = 10**9


def _file_key(folder: Path) -> tuple[Keypair, str]:
    """A keypair file (0600) with no SOL on the sandbox's chain."""
    keypair = Keypair()
    path = folder / "creator.json"
    path.write_text(json.dumps(list(bytes(keypair))))
    os.chmod(path, 0o600)
    return keypair, f"file:{path}"


def _airdrop(sandbox, keypair: Keypair, lamports: int = 2 * SOL) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "requestAirdrop",
        "params": [str(keypair.pubkey()), lamports],
    }
    answer = web.post(sandbox.rpc_url, json=body, timeout=30).json()
    assert "result" in answer, answer


def _attempts(state: Path, key: str) -> list:
    async def read():
        journal = await Journal.open(f"sqlite:///{state / 'sandbox' / 'journal.db'}")
        try:
            record = await journal.get(key)
            events = await journal.events(key)
        finally:
            await journal.close()
        return record, events

    return asyncio.run(read())


def test_a_failed_launch_runs_again_once_the_key_is_funded(sandbox, tmp_path):
    keypair, source = _file_key(tmp_path)
    env = profile_env(sandbox, tmp_path / "home", LAUNCHOPS_KEYPAIR=source)
    path = write_launch(tmp_path / "launches", key="short-of-sol")

    first = launchops(env, "launch", str(path), "--no-prefect", "--json")
    assert first.returncode == 1, first.stderr
    result = json.loads(first.stdout)
    assert result["state"] == "failed"
    assert f"the key {keypair.pubkey()} has no SOL on this network" in result["error"]
    assert "about 0.05 SOL" in result["error"]

    again = launchops(env, "launch", str(path), "--no-prefect", "--json")  # not funded yet
    assert json.loads(again.stdout)["state"] == "failed", again.stderr
    _airdrop(sandbox, keypair)
    third = launchops(env, "launch", str(path), "--no-prefect")
    assert third.returncode == 0, third.stdout + third.stderr
    assert "registered" in third.stdout

    record, events = _attempts(tmp_path / "home", "short-of-sol")
    assert str(record.state) == "registered"
    assert [str(a.outcome) for a in record.attempts] == ["failed", "failed", "None"]
    assert record.attempt == 3
    messages = [message for _, _, message in events]  # every attempt's story is kept
    assert [m for m in messages if m.startswith("attempt ") and ":" in m[:11]] == [
        messages[2],
        "attempt 1: failed",
        messages[6],
        "attempt 2: failed",
        messages[10],
    ]


def test_an_edited_failed_launch_is_taken_with_replace(sandbox, tmp_path):
    keypair, source = _file_key(tmp_path)
    env = profile_env(sandbox, tmp_path / "home", LAUNCHOPS_KEYPAIR=source)
    path = write_launch(tmp_path / "launches", key="edited-after-failing")
    first = launchops(env, "launch", str(path), "--no-prefect", "--json")
    assert json.loads(first.stdout)["state"] == "failed", first.stderr

    _airdrop(sandbox, keypair)
    write_launch(tmp_path / "launches", key="edited-after-failing", symbol="EDIT")
    refused = launchops(env, "launch", str(path), "--no-prefect")
    assert refused.returncode == 2  # a refusal: nothing sent
    [line] = refused.stderr.strip().splitlines()
    assert "launchops resume edited-after-failing finishes it as it was created" in line
    assert "give it a new id:" in line and "--replace takes the edit over only" in line
    taken = launchops(env, "launch", str(path), "--no-prefect", "--replace", "--json")
    assert taken.returncode == 0, taken.stdout + taken.stderr
    assert json.loads(taken.stdout)["state"] == "registered"


def test_a_failed_batch_runs_again_once_the_key_is_funded(sandbox, tmp_path):
    keypair, source = _file_key(tmp_path)
    env = profile_env(sandbox, tmp_path / "home", LAUNCHOPS_KEYPAIR=source)
    folder = tmp_path / "batch"
    for n in range(3):
        write_launch(folder, f"b-{n}.yaml", key=f"batch-short-{n}", symbol=f"B{n}")

    first = launchops(env, "batch", str(folder), "--no-prefect", "--json")
    assert first.returncode == 1, first.stderr
    assert {row["state"] for row in json.loads(first.stdout)["launches"]} == {"failed"}

    _airdrop(sandbox, keypair)
    again = launchops(env, "batch", str(folder), "--no-prefect", "--json")
    assert again.returncode == 0, again.stdout + again.stderr
    assert {row["state"] for row in json.loads(again.stdout)["launches"]} == {"registered"}
