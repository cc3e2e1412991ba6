"""Launch files, profiles and contexts for pipeline tests against a running sandbox."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from solders.keypair import Keypair

import launchops.web as web
from launchops.config.launchfile import LaunchPlan, load_launch_file
from launchops.config.profiles import Profile, load_profile
from launchops.journal.records import Attempt
from launchops.pipeline.context import LaunchContext, open_context
from launchops.pipeline.runner import run_step
from launchops.states import LaunchState, Step
from tests.support import forks

RECIPIENT = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
WALLET = Keypair().pubkey()  # the profile's key the launch files of a test run are read for
CONFIGS = Path(__file__).resolve().parents[2] / "configs"  # the example launch files


def load_launch(path: Path, **kw: Any) -> LaunchPlan:
    """The launch file read for the profile key WALLET, as of now (unless told otherwise)."""
    kw.setdefault("wallet", WALLET)
    kw.setdefault("now", datetime.now(UTC))
    return load_launch_file(path, **kw)


def future(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def launch_document(
    form: str = "launchpool", key: str | None = None, **changes: Any
) -> dict[str, Any]:
    """A valid launch file's document: a launchpool, a presale, or (any other `form`) the
    allocations form; its times ahead; `changes` replace top-level fields."""
    base: dict[str, Any] = {
        "name": "Pipeline Token",
        "symbol": "PIPE",
        "image": "https://gateway.irys.xyz/pipeline",
        "description": "A launch made by the test suite.",
    }
    if key:
        base["id"] = key
    if form == "launchpool":
        base["launchpool"] = _launchpool()
    elif form == "presale":
        base["presale"] = {
            "tokenAllocation": 300_000_000,
            "quoteCap": 1000,
            "depositStartTime": future(30),
            "depositEndTime": future(31),
            "claimStartTime": future(32),
        }
    else:
        base.update(type="presale", decimals=9, supply=1_000_000, allocations=_allocations())
    base.update(changes)
    return base


def _launchpool() -> dict[str, Any]:
    return {
        "tokenAllocation": 500_000_000,
        "depositStartTime": future(30),
        "raiseGoal": 250,
        "raydiumLiquidityBps": 5000,
        "fundsRecipient": RECIPIENT,
        "lockedAllocations": [
            {
                "name": "Team",
                "recipient": RECIPIENT,
                "tokenAmount": 50_000_000,
                "vestingStartTime": future(33),
                "vestingDuration": {"value": 1, "unit": "YEAR"},
                "unlockSchedule": "MONTH",
            }
        ],
    }


def _allocations() -> list[dict[str, Any]]:
    """A presale, its liquidity and an unlocked treasury, in the allocations form."""
    return [
        {
            "type": "presaleV2",
            "name": "Presale",
            "supply": 600_000,
            "presaleV2": {
                "allocationQuoteTokenCap": 100,
                "depositStartCondition": {"type": "TimeAbsolute", "timestamp": future(30)},
                "depositEndCondition": {"type": "TimeAbsolute", "timestamp": future(31)},
                "claimStartCondition": {"type": "TimeAbsolute", "timestamp": future(31)},
                "claimEndCondition": {"type": "Never"},
            },
        },
        {"type": "raydiumV2", "name": "Liquidity", "supply": 200_000, "raydiumV2": {}},
        {
            "type": "unlockedV2",
            "name": "Treasury",
            "supply": 200_000,
            "unlockedV2": {
                "recipient": RECIPIENT,
                "claimStartCondition": {"type": "Always"},
                "claimEndCondition": {"type": "Never"},
            },
        },
    ]


class _NoAliases(yaml.SafeDumper):
    """Launch files take no YAML aliases: repeated values are written out."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(document: Any) -> str:
    return yaml.dump(document, Dumper=_NoAliases, sort_keys=False)


def write_launch(
    folder: Path,
    filename: str = "launch.yaml",
    form: str = "launchpool",
    key: str | None = None,
    **changes: Any,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    path.write_text(dump_yaml(launch_document(form, key, **changes)))
    return path


def sandbox_env(sandbox: Any, state: Path, **extra: str) -> dict[str, str]:
    """The settings that aim launchops at `sandbox`, its state under `state`."""
    return {
        "LAUNCHOPS_HOME": str(state),
        "LAUNCHOPS_BASE_URL": sandbox.base_url,
        "LAUNCHOPS_RPC_URL": sandbox.rpc_url,
        "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
        "LAUNCHOPS_POLL_SECONDS": "0.02",
        **extra,
    }


def profile_env(sandbox: Any, state: Path, **extra: str) -> dict[str, str]:
    """Environment for a `launchops` subprocess aimed at `sandbox`."""
    return {
        **os.environ,
        **sandbox_env(sandbox, state, LAUNCHOPS_REBROADCAST_SECONDS="0.3"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        **extra,
    }


def aim_flows_at(monkeypatch: Any, sandbox: Any, state: Path, **extra: str) -> None:
    """Aim the flows this test runs in-process at `sandbox` (through the environment)."""
    for name, value in sandbox_env(sandbox, state, **extra).items():
        monkeypatch.setenv(name, value)


def profile_for(sandbox: Any, state: Path, **overrides: Any) -> Profile:
    values: dict[str, Any] = {
        "base_url": sandbox.base_url,
        "rpc_url": sandbox.rpc_url,
        "embedded_sandbox": False,
        "state_dir": state,
        "poll_seconds": 0.02,
        "rebroadcast_seconds": 0.3,
    }
    values.update(overrides)
    return load_profile("sandbox", **values)


@asynccontextmanager
async def context_for(sandbox: Any, state: Path, lease_seconds: float = 60.0, **overrides: Any):
    async with open_context(
        profile_for(sandbox, state, **overrides), lease_seconds=lease_seconds
    ) as ctx:
        yield ctx


def stats(sandbox: Any) -> dict[str, Any]:
    return web.get(f"{sandbox.url}/_sandbox/stats").json()


def state_in_journal(journal_url: str, key: str) -> str:
    """The launch's state as its journal holds it ("(none)" before it has a row)."""
    import asyncio

    from launchops.journal.store import Journal

    async def read() -> str:
        journal = await Journal.open(journal_url)
        try:
            record = await journal.get(key)
        finally:
            await journal.close()
        return record.state if record else "(none)"

    return asyncio.run(read())


def set_faults(sandbox: Any, **faults: Any) -> None:
    """The sandbox's faults set (the latency it adds delays this call's answer too)."""
    answer = web.put(f"{sandbox.url}/_sandbox/faults", json=faults, timeout=30)
    assert answer.status_code == 200, answer.text


def quick_waits(monkeypatch: Any, policy: str) -> None:
    """The service client's `policy` (SERVICE_CALLS, REGISTER_CALLS) with its attempts
    kept and its waits cut to milliseconds, for a test of the count, not the waits."""
    from dataclasses import replace

    from launchops import retries

    quick = replace(getattr(retries, policy), initial_wait=0.01, max_wait=0.05)
    monkeypatch.setattr(f"launchops.api.client.transport.{policy}", quick)


def seed_agent(sandbox: Any, owner: object) -> str:
    """A new agent (an mpl-core asset) owned by `owner`, seeded on the sandbox: its address."""
    made = web.post(f"{sandbox.url}/_sandbox/seed", params={"agents": 1, "owner": str(owner)})
    made.raise_for_status()
    return made.json()["agents"][0]


def advance(sandbox: Any, slots: int) -> None:
    web.post(f"{sandbox.url}/_sandbox/advance", params={"slots": slots}).raise_for_status()


ROOT = Path(__file__).resolve().parents[2]


def launchops(
    env: dict[str, str],
    *args: str,
    timeout: float = 240,
    kill: str | None = None,
    module: str = "launchops.cli",
    fresh: bool = False,
) -> subprocess.CompletedProcess:
    """`launchops ARGS` as a user runs it, in a child process with `env` (forked from the
    suite's fork server: tests/support/forks.py); `kill`: the moment it SIGKILLs itself
    (tests.support.crash); `module`: another command's module (`prefect`); `fresh`: a new
    interpreter, for a test of what the command imports or starts."""
    prefix = ["tests.support.crash", kill] if kill else [module]
    return forks.run(
        [sys.executable, "-m", *prefix, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
        fresh=fresh,
    )


def started(
    env: dict[str, str], *args: str, stderr: Any = subprocess.PIPE, session: bool = False
) -> subprocess.Popen[str] | forks.Popen:
    """`launchops ARGS` as a user runs it, started in a child process with `env` and not
    waited for: its output piped (`stderr`: where its errors go instead); `session`: in a
    session of its own, so that the test can kill it and all it started."""
    return forks.popen(
        [sys.executable, "-m", "launchops.cli", *args],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=env,
        cwd=ROOT,
        start_new_session=session,
    )


def workspace(sandbox: Any, tmp_path: Path, **extra: str) -> tuple[Path, dict[str, str]]:
    """A user's folder with the checkout's configs in it, and the environment of a user's
    `launchops` there: aimed at `sandbox`, this checkout's commands first on PATH."""
    import shutil

    work = tmp_path / "work"
    shutil.copytree(ROOT / "configs", work / "configs")
    env = profile_env(sandbox, tmp_path / "home", **extra)
    env["PATH"] = forks.on_path(env["PATH"])
    return work, env


def no_service_env(home: Path) -> dict[str, str]:
    """Environment of a command run with no sandbox and no Prefect server to ask (a refusal
    asks nothing of either), its state under `home`, `launchops` on its PATH."""
    return {
        **os.environ,
        "LAUNCHOPS_HOME": str(home),
        "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
        "PREFECT_API_URL": "http://127.0.0.1:9/api",
        "PATH": forks.on_path(os.environ["PATH"]),
    }


def embedded_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment of a user's program or command on the sandbox profile, its embedded
    sandbox on a free port of its own (not :8899, so tests run side by side)."""
    from launchops.sandbox.process import free_port

    port = free_port()
    return {
        **os.environ,
        "LAUNCHOPS_HOME": str(home),
        "LAUNCHOPS_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "LAUNCHOPS_RPC_URL": f"http://127.0.0.1:{port}",
        "LAUNCHOPS_SANDBOX_SLOT_MS": "50",
        **extra,
    }


def run_python(script: str, env: dict[str, str], timeout: float = 300) -> str:
    """`python -c SCRIPT` from the checkout, as a user's program: its stdout (it must
    exit 0; its stderr's end is the failure message)."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


async def land_first(ctx: LaunchContext, key: str) -> Attempt:
    """Create and sign the launch, then send its first transaction only and wait until it
    is confirmed, as a run killed right after that send would have left it: the attempt."""
    await run_step(Step.CREATE, ctx, key)
    await run_step(Step.SIGN, ctx, key)
    attempt = (await ctx.journal.get(key)).current
    assert attempt is not None and attempt.signed is not None
    await ctx.rpc.send(attempt.signed[0], skip_preflight=False)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        [landing] = await ctx.rpc.statuses([attempt.signatures[0]])
        if landing is not None and landing.reached("confirmed"):
            return attempt
    raise AssertionError(f"launch {key}: its first transaction did not land in 60 s")


async def killed_after_first(ctx: LaunchContext, key: str) -> Attempt:
    """`land_first`, with the journal as the killed run left it: the first sent, submitting."""
    attempt = await land_first(ctx, key)
    assert attempt.sends is not None
    sends = [replace(s, sent=i == 0) for i, s in enumerate(attempt.sends)]
    async with ctx.holding(key):  # a write outside a step holds the lease too
        await ctx.journal.record_sends(key, attempt.number, sends, state=LaunchState.SUBMITTING)
    return attempt
