"""The README as a new user runs it: every command line of its shell blocks in the
sections below, in order, on a sandbox, placeholders filled from earlier outputs, each
exiting as the README says (0, unless the line says otherwise). Lines on the public
service (`--profile devnet` or `mainnet`) are the ones the README marks as not runnable
here; `deploy`, prefect.yaml's `prefect deploy --all` and the several-machines set-up
have tests of their own (tests/batch/test_serve_schedules.py, tests/workers)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import launchops.web as web
from tests.support import docs
from tests.support.pipeline import workspace, write_launch

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = [
    "What it does",
    "Command line",
    "Launch files",
    "Running a launch",
    "Batches",
    "Registration retry",
    "Schedules and several workers",
    "Profiles",
    "The sandbox",
]
PUBLIC = re.compile(r"--profile (devnet|mainnet)\b")
# Served until stopped: the sandbox is served for the whole test instead, and
# tests/batch/test_serve_schedules.py runs `deploy --serve` until its schedule fired.
LONG_RUNNING = ("launchops sandbox serve", "launchops deploy --serve")
# prefect.yaml's deployments, made from the checkout (this test runs in a folder of its
# own): tests/workers/test_readme_machines.py runs them, with a server and two workers.
ELSEWHERE = ("prefect work-pool", "prefect --no-prompt deploy")


def command_lines(section: str) -> list[tuple[str, int]]:
    """The command lines of a README section's shell blocks, joined where a line ends in
    a backslash, each with the exit code its comment names (`exit N`; 0 when none)."""
    body = docs.section(section)
    lines: list[tuple[str, int]] = []
    for block in re.findall(r"```bash\n(.*?)```", body, re.S):
        joined = block.replace("\\\n", " ")
        for line in joined.splitlines():
            command, _, comment = line.partition("  #")
            exits = re.search(r"\bexit (\d)\b", comment)
            if command.strip() and not command.strip().startswith("#"):
                lines.append((command.strip(), int(exits.group(1)) if exits else 0))
    return lines


@pytest.fixture
def newcomer(sandbox_factory, tmp_path, prefect_env):
    """A folder to run the README from, a sandbox on a free port for the sandbox profile,
    Prefect's test server for the runs through Prefect, and the files a user would make."""
    sandbox = sandbox_factory(slot_ms=50)
    work, env = workspace(sandbox, tmp_path, **prefect_env)
    write_launch(work, "my-token.yaml", key="my-token-2027", symbol="MINE")
    write_launch(work / "launches", "a.yaml", key="readme-a", symbol="RA")
    write_launch(work / "launches", "b.yaml", key="readme-b", symbol="RB")
    env["COLUMNS"] = "100"
    return sandbox, work, env


def _fill(line: str, known: dict[str, str]) -> str:
    for placeholder, value in known.items():
        line = line.replace(placeholder, value)
    return line


def test_the_readme_runs_as_written(newcomer):
    sandbox, work, env = newcomer
    owner = _profile_key(env, work)
    web.post(
        f"{sandbox.url}/_sandbox/seed", params={"agents": 3, "owner": owner}
    ).raise_for_status()
    listed = web.get(f"{sandbox.base_url}/agents", params={"limit": 100}).json()["data"]
    mine = [a["mintAddress"] for a in listed["agents"] if owner in json.dumps(a)]
    assert mine, listed
    known = {"<AGENT_ADDRESS>": mine[0], "<AGENT>": mine[0]}
    (work / "funding.csv").write_text(f"agent,amount,memo\n{mine[0]},0.01,readme\n")
    ran, skipped = [], []
    for section in SECTIONS:
        for line, exits in command_lines(section):
            if PUBLIC.search(line) or line.startswith(LONG_RUNNING + ELSEWHERE):
                skipped.append(line)
                continue
            if "<MINT>" in line and "<MINT>" not in known:
                known["<MINT>"] = _a_mint(work, env)
            command = _fill(line, known)
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            ran.append(command)
            assert done.returncode == exits, (
                section,
                command,
                done.stdout[-1500:],
                done.stderr[-2000:],
            )
            assert "Traceback" not in done.stderr, (command, done.stderr[-2000:])
    assert len(ran) >= 20, ran
    assert all(PUBLIC.search(s) or s.startswith(LONG_RUNNING + ELSEWHERE) for s in skipped)


def _profile_key(env: dict[str, str], work: Path) -> str:
    """The sandbox profile's key (its throwaway key, made on first use)."""
    code = (
        "from launchops.config.profiles import load_profile;"
        "from launchops.chain.keys import load_keypair;"
        "p = load_profile('sandbox');"
        "print(load_keypair(p.keypair, state_dir=p.profile_dir).pubkey())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-1000:]
    return done.stdout.strip()


def _a_mint(work: Path, env: dict[str, str]) -> str:
    """A token the sandbox profile launched, on its own network (what `tokens get <MINT>`
    reads)."""
    path = write_launch(work, "readme-token.yaml", key="readme-token")
    done = subprocess.run(
        shlex.split(f"launchops launch {path} --no-prefect --json"),
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)["mint"]
