"""A compromised service (the sandbox's `compromised_next`: its create answer rewritten to
take from the creator, signed by the service's own key) met as a user meets it: the
launch is refused before anything is signed, in one line naming the transaction, the
instruction and what it would do; it ends `refused` (exit 3), the stranger's balance
unchanged; a re-run never signs the refused answer but creates again; the same batch's
honest launches register."""

from __future__ import annotations

import json
import time

import pytest

from launchops.sandbox.compromise import STEALING, STRANGER
from tests.support.pipeline import (
    advance,
    launchops,
    profile_env,
    profile_for,
    set_faults,
    started,
    state_in_journal,
    stats,
    write_launch,
)

SAID = {  # what the one line names, per attack
    "transfer": "a System transfer of 5 SOL from ",
    "extra_transaction": "a System transfer of 5 SOL from ",
    "set_authority": "a token program SetAuthority on ",
    "approve": "a token program Approve on ",
    "unknown_program": "an instruction of program ",
    "extra_signer": f"it asks for the signature of {STRANGER}",
    "fee_payer": f"its fee payer is {STRANGER}, not the creator",
    "genesis_args": "initializeV2 with symbol 'SCAM'",
}


def balance(sandbox, key) -> int:
    import launchops.web as web

    answer = web.post(
        sandbox.rpc_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": [str(key)]},
    )
    return answer.json()["result"]["value"]


@pytest.mark.parametrize("attack", STEALING)
def test_a_stealing_answer_is_refused_before_anything_is_signed(sandbox_factory, tmp_path, attack):
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    file = write_launch(tmp_path / "launches", key=f"stolen-{attack}")
    set_faults(sandbox, compromised_next=[attack])
    done = launchops(env, "launch", str(file), "--no-prefect", "--json")
    assert done.returncode == 3, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["state"] == "refused", result
    assert SAID[attack] in result["error"], result["error"]
    assert result["error"].endswith("nothing signed"), result["error"]
    assert result["error"].startswith("transaction "), result["error"]
    assert balance(sandbox, STRANGER) == 0
    assert stats(sandbox)["launches"]["mintsOnChain"] == 0  # nothing of it sent


def test_a_refused_launch_is_never_signed_and_a_rerun_creates_again(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    file = write_launch(tmp_path / "launches", key="refused-then-again")
    set_faults(sandbox, compromised_next=["transfer"])
    first = launchops(env, "launch", str(file), "--no-prefect")
    assert first.returncode == 3, first.stderr[-2000:]
    assert "nothing signed" in first.stderr + first.stdout
    status = json.loads(launchops(env, "status", "refused-then-again", "--json").stdout)
    assert status["state"] == "refused"
    again = launchops(env, "launch", str(file), "--no-prefect", "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    result = json.loads(again.stdout)
    assert result["state"] == "registered"
    assert balance(sandbox, STRANGER) == 0
    counts = stats(sandbox)["launches"]
    assert counts["created"] == 2 and counts["mintsOnChain"] == 1


def test_a_batch_goes_on_with_its_honest_launches(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    folder = tmp_path / "launches"
    for index in range(3):
        write_launch(folder, f"l{index}.yaml", key=f"batch-stolen-{index}")
    set_faults(sandbox, compromised_next=["extra_transaction"])
    done = launchops(env, "batch", str(folder), "--no-prefect", "--json")
    assert done.returncode == 3, done.stderr[-2000:]
    result = json.loads(done.stdout)
    states = sorted(row["state"] for row in result["launches"])
    assert states == ["refused", "registered", "registered"], result["launches"]
    [refused] = [row for row in result["launches"] if row["state"] == "refused"]
    assert SAID["extra_transaction"] in refused["error"]
    assert balance(sandbox, STRANGER) == 0


def test_an_inflated_expiry_ends_in_one_new_create_and_a_registered_launch(
    sandbox_factory, tmp_path
):
    """The service answers a lastValidBlockHeight 10^9 blocks too high, and nothing of the
    attempt lands before its blockhash dies (every send dropped, then 200 slots on): the
    chain bounds the expiry, the attempt is found dead, and the one run creates again and
    registers (the service's figure alone would wait for ever)."""
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    journal = profile_for(sandbox, tmp_path / "home").journal
    file = write_launch(tmp_path / "launches", key="inflated-expiry")
    set_faults(sandbox, compromised_next=["expiry"], drop_rate=1.0)
    command = started(env, "launch", str(file), "--no-prefect", "--json")
    deadline = time.monotonic() + 120
    while state_in_journal(journal, "inflated-expiry") != "submitting":
        assert time.monotonic() < deadline and command.poll() is None
        time.sleep(0.1)
    advance(sandbox, 200)  # the blockhash dies with nothing of it landed
    set_faults(sandbox, drop_rate=0.0)
    out, err = command.communicate(timeout=240)
    assert command.returncode == 0, err[-2000:]
    assert json.loads(out)["state"] == "registered"
    counts = stats(sandbox)["launches"]
    assert counts["created"] == 2 and counts["mintsOnChain"] == 1
