"""The docs' "Landing on a busy cluster" as a user runs it: its profiles YAML written
as the profiles file, then every command line of its shell block on a sandbox (congestion
0.9 and the sniper on, set by the first line), each exiting 0; the launch lands as one
bundle, its tip shown and paid once, and its first buy gets the opening price."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support import docs, forks
from tests.support.pipeline import profile_env
from tests.test_readme_commands import command_lines

ROOT = Path(__file__).resolve().parents[1]
SECTION = "Landing on a busy cluster"


def profiles_yaml() -> str:
    [block] = docs.blocks(docs.section(SECTION), "yaml")
    return block


def test_the_landing_section_runs_as_written(sandbox_factory, tmp_path):
    sandbox = sandbox_factory(slot_ms=50)
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["cp", "-r", str(ROOT / "configs"), str(work)], check=True)
    (work / "profiles.yaml").write_text(profiles_yaml())
    env = profile_env(sandbox, tmp_path / "home")
    env["PATH"] = forks.on_path(env["PATH"])
    env["COLUMNS"] = "120"
    out: dict[str, str] = {}
    lines = command_lines(SECTION)
    assert len(lines) == 5
    for line, exits in lines:
        done = subprocess.run(
            ["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == exits, (line, done.stdout[-1500:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (line, done.stderr[-2000:])
        out[line.split(" --profile")[0].split("   #")[0]] = done.stdout
    assert (
        '"congestion": 0.9'
        in out["launchops sandbox faults --set congestion=0.9 --set sniper=true"]
    )
    assert "8 tip accounts" in out["launchops check"]
    dry = out["launchops launch configs/bonding-curve.yaml --dry-run"]
    assert "a tip of 10000 lamports" in " ".join(dry.split())
    launched = " ".join(out["launchops launch configs/bonding-curve.yaml --no-prefect"].split())
    assert "tips 10000 (bundle)" in launched and "sniped" not in launched
    assert "spent:" in out["launchops status"]
    status = subprocess.run(
        [
            "launchops",
            "status",
            "demo-bonding-curve",
            "--json",
            "--profile",
            "busy-sandbox",
            "--profiles",
            "profiles.yaml",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert status.returncode == 0, status.stderr[-1500:]
    stats = json.loads(
        subprocess.run(
            ["curl", "-s", f"{sandbox.url}/_sandbox/stats"], capture_output=True, text=True
        ).stdout
    )
    assert stats["bundles"]["landed"] == 1 and stats["rpc"].get("sendTransaction", 0) == 0
