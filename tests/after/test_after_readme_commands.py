"""The README's "After the launch" command lines, run as written on a sandbox (but the
`deploy --serve` ones, served until stopped: tests/after/test_after_deploy.py), with what
they must answer: the mint of every launch status, the claim-wallets file claimed as
shipped, and that file's problems named by line and field, at once, by `rewards claim`
and by `deploy --serve --claim-wallets`."""

from __future__ import annotations

import json
import subprocess

from tests.after.test_watch import curve_file
from tests.support.pipeline import launchops, profile_env, run_python, workspace
from tests.test_readme_commands import ROOT, command_lines

SECTION = "After the launch: agents, creator rewards, launch status"


def test_the_after_launch_lines_run_as_written(sandbox_factory, tmp_path, prefect_env):
    sandbox = sandbox_factory(slot_ms=50)
    work, env = workspace(sandbox, tmp_path, **prefect_env)
    launched = launchops(env, "launch", str(curve_file(work, "after-curve")), "--no-prefect")
    assert launched.returncode == 0, launched.stderr[-2000:]
    known = {"<FEE_WALLET>": "11111111111111111111111111111111"}
    known["<GENESIS_ADDRESS | LAUNCH_KEY>"] = "after-curve"
    outputs: dict[str, str] = {}
    for line, exits in command_lines(SECTION):
        if line.startswith("launchops deploy --serve"):
            continue
        for placeholder, value in known.items():
            line = line.replace(placeholder, value)
        done = subprocess.run(
            ["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == exits, (line, done.stdout[-1500:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (line, done.stderr[-2000:])
        outputs[line] = done.stdout
    claimed = json.loads(
        outputs["launchops rewards claim --wallets configs/claim-wallets.yaml --json"]
    )
    assert claimed["wallet"] == known["<FEE_WALLET>"] and claimed["finished"], claimed
    [live] = [s for s in json.loads(outputs["launchops launches list --status live --json"])]
    status = launchops(env, "launches", "status", "after-curve", "--json")
    mint = json.loads(status.stdout)["mint"]
    assert mint and live["mint"] == mint and live["key"] == "after-curve", (live, status.stdout)
    assert "HrpvHK" not in mint  # the launch's own mint, not an example
    script = (
        "import launchops\n"
        "one = launchops.launch_status_sync('after-curve')\n"
        "every = launchops.list_launches_sync('live')\n"
        "print(one.mint, *[r.mint for r in every])\n"
    )
    assert run_python(script, env).split() == [mint, mint]


def test_a_claim_wallets_file_is_checked_at_once(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    bad = tmp_path / "wallets.yaml"
    bad.write_text(
        "wallets:\n  - wallet: 11111111111111111111111111111111\n  - {wallet: not-an-address}\n"
    )
    claim = launchops(env, "rewards", "claim", "--wallets", str(bad), "--json")
    assert claim.returncode == 1 and "Traceback" not in claim.stderr, claim.stderr
    assert claim.stderr.splitlines() == [
        f"error: {bad}:2: wallets[0].wallet: must be a base58 public key in quotes: "
        "YAML reads 11111111111111111111111111111111 as a number",
        f"error: {bad}:3: wallets[1].wallet: must be a base58 public key; characters "
        "outside base58: '-'",
    ]
    deploy = launchops(env, "deploy", "--serve", "--claim-wallets", str(bad), timeout=60)
    assert deploy.returncode == 2, (deploy.stdout, deploy.stderr)
    [line] = deploy.stderr.splitlines()
    assert f"{bad}:2: wallets[0].wallet: must be a base58 public key in quotes" in line
    assert (
        "wallets[1].wallet" in line
        and "claim-all" not in (ROOT / "configs" / "claim-wallets.yaml").read_text()
    )
