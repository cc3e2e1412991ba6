"""The commands after a launch, as a user runs them (child processes, 80 columns): a mint
twice, a claim of nothing, a launch's status and the list, a bad agent file's one line."""

from __future__ import annotations

import json

from tests.after.test_agents_mint import agents_named, write_agent
from tests.after.test_watch import curve_file
from tests.support.pipeline import launchops, profile_env


def fits(output: str) -> None:
    assert all(len(line) <= 80 for line in output.splitlines()), output


def test_the_after_launch_commands(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = {**profile_env(sandbox, tmp_path / "home"), "COLUMNS": "80"}
    path = write_agent(tmp_path / "agents", "cli-agent", "CLI Agent")
    first = launchops(env, "agents", "mint", str(path), "--no-prefect")
    assert first.returncode == 0, first.stderr
    fits(first.stdout)
    assert "agent: {mint:" in first.stdout
    assert "already minted" not in first.stdout
    again = launchops(env, "agents", "mint", str(path), "--no-prefect", "--json")
    minted = json.loads(again.stdout)
    assert minted["finished"] and agents_named(sandbox, "CLI Agent") == [minted["asset"]]
    assert minted["fromJournal"] is True  # the docs: "reports the agent already minted"
    third = launchops(env, "agents", "mint", str(path), "--no-prefect")
    assert "agent agent-cli-agent: already minted, from the journal" in third.stdout

    claim = launchops(env, "rewards", "claim", "--no-prefect")
    assert claim.returncode == 0, claim.stderr
    fits(claim.stdout)
    assert "nothing to claim" in claim.stdout

    curve = curve_file(tmp_path / "l", "cli-curve")
    launched = launchops(env, "launch", str(curve), "--json", "--no-prefect")  # not the subject
    genesis = json.loads(launched.stdout)["genesisAccount"]
    status = launchops(env, "launches", "status", "cli-curve", "--json")
    assert json.loads(status.stdout)["genesisAddress"] == genesis
    shown = launchops(env, "launches", "status", "cli-curve").stdout
    assert shown.startswith("1 launch\n"), shown
    listed = launchops(env, "launches", "list", "--status", "live")
    assert listed.returncode == 0, listed.stderr
    fits(listed.stdout)
    assert "WATCH" in listed.stdout and "cli-curve" in listed.stdout

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nuri: https://example.com/x.json\n")
    refused = launchops(env, "agents", "mint", str(bad), "--no-prefect")
    assert refused.returncode != 0 and "metadata" in refused.stderr
    assert "Traceback" not in refused.stderr
    bad_wallet = launchops(env, "rewards", "claim", "--wallet", "not-a-key", "--no-prefect")
    assert bad_wallet.returncode != 0  # as every command's invalid input: a line a field
    assert "wallet: must be a base58 public key" in bad_wallet.stderr
    bad_status = launchops(env, "launches", "list", "--status", "soon")
    assert bad_status.returncode == 2 and "upcoming" in bad_status.stderr
    unknown = launchops(env, "launches", "status", "no-such-launch")
    assert unknown.returncode != 0 and len(unknown.stderr.strip().splitlines()) == 1
