"""One scenario, run: the first command under every fault it drew (crashed, cancelled, its
RPC or service taken away, its journal cut, its leases stolen), then the same command again
as a user would, until it settles (at most RERUNS times; then `registrations retry` once),
the invariants checked after every command (`tests.sim.invariants`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from launchops.journal.records import LaunchRecord
from launchops.journal.store import Journal
from launchops.pipeline.batch import retry_registrations, run_batch
from launchops.pipeline.context import open_context
from tests.sim import invariants as check
from tests.sim.scenario import Scenario
from tests.sim.world import (
    PROFILE,
    JournalOutage,
    Seeded,
    creates,
    lease_thief,
    place,
    set_faults,
    stranger_lamports,
)
from tests.support import forks
from tests.support.pipeline import ROOT, profile_for

BOUND_SECONDS = 90.0  # a command of a scenario ends within this, whatever it met
RERUNS = 5
LEASE_LAPSE = PROFILE["lease_seconds"] + 0.5  # a crashed run's lease, in this same process
SETTLED = {"registered", "needs_attention"}


@dataclass
class Command:
    """One command of a scenario, as it ended."""

    what: str
    seconds: float
    rows: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    killed: bool = False
    output: str = ""  # what a process printed (stdout and stderr), for a command run as one


@dataclass
class Outcome:
    """A scenario's commands, and the first invariant that broke (None: all held)."""

    scenario: Scenario
    commands: list[Command] = field(default_factory=list)
    broken: str | None = None

    def report(self) -> str:
        lines = [f"seed {self.scenario.seed}: {self.broken or 'every invariant held'}"]
        lines.append(f"  scenario: {self.scenario.describe()}")
        for command in self.commands:
            states = ", ".join(f"{r.get('key')}={r.get('state')}" for r in command.rows)
            ended = "killed" if command.killed else (command.error or "ok")
            lines.append(f"  {command.what} ({command.seconds:.1f} s): {ended}; {states}")
        lines.append(
            f"  replay: LAUNCHOPS_SIM_SEED={self.scenario.seed} python -m tests.sim "
            f"--drivers {self.scenario.driver}"
        )
        return "\n".join(lines)


async def simulate(sandbox: Any, scenario: Scenario, root: Path) -> Outcome:
    """Run `scenario` against `sandbox` under `root`; the outcome, never an exception."""
    seeded = place(scenario, root)
    outcome = Outcome(scenario)
    try:
        set_faults(sandbox, {**scenario.faults, **scenario.first_only})
        outcome.commands.append(await _first(sandbox, seeded))
        await _checked(sandbox, seeded, outcome.commands[-1])
        set_faults(sandbox, scenario.faults)  # the outages over, the lies go on
        await asyncio.sleep(scenario.pause)  # the user comes back later, or at once
        for index in range(RERUNS):
            if any(row.get("state") == "elsewhere" for row in outcome.commands[-1].rows):
                await asyncio.sleep(LEASE_LAPSE)  # as the line says: when its lease expires
            command = await _again(sandbox, seeded, f"re-run {index + 1}")
            outcome.commands.append(command)
            records = await _checked(sandbox, seeded, command)
            if all(r.state in SETTLED or r.state == "register_failed" for r in records.values()):
                break
        if any(r.state == "register_failed" for r in records.values()):
            outcome.commands.append(await _registrations(sandbox, seeded))
            records = await _checked(sandbox, seeded, outcome.commands[-1])
        mints = check.mints_on_chain(creates(sandbox), seeded.names)
        check.converged(records, mints, seeded.keys, tail_fails=scenario.fail_tail)
    except check.Broken as exc:
        outcome.broken = str(exc)
    finally:
        set_faults(sandbox, {})
    return outcome


async def _checked(sandbox: Any, seeded: Seeded, command: Command) -> dict[str, LaunchRecord]:
    """The invariants after one command; the journal's records of the seed's launches."""
    if command.seconds > BOUND_SECONDS:
        raise check.Broken(f"{command.what} took {command.seconds:.0f} s")
    check.one_line(f"{command.what}'s error", command.error)
    for row in command.rows:
        check.one_line(f"{command.what}: {row.get('key') or row.get('file')}", row.get("error"))
    shown = [command.error, command.output, json.dumps(command.rows)]
    shown += [path.read_bytes() for path in seeded.home.rglob("*") if path.is_file()]
    for text in shown:
        check.no_secret(command.what, text, seeded.secrets)
    made = creates(sandbox)
    mints = check.mints_on_chain(made, seeded.names)
    check.at_most_one_mint(mints)
    records = await _records(seeded)
    check.nothing_landed_is_true(records, {c["mint"] for c in made if c["mintOnChain"]})
    check.nothing_unasked_lands(made, stranger_lamports(sandbox))
    check.honest_never_refused(records, made)
    return records


async def _records(seeded: Seeded) -> dict[str, LaunchRecord]:
    path = seeded.home / "sandbox" / "journal.db"
    if not path.exists():
        return {}
    journal = await Journal.open(f"sqlite:///{path}")
    try:
        found = {key: await journal.get(key) for key in seeded.keys}
    finally:
        await journal.close()
    return {key: record for key, record in found.items() if record is not None}


# ── the commands ────────────────────────────────────────────────────────────


async def _first(sandbox: Any, seeded: Seeded) -> Command:
    scenario = seeded.scenario
    taking = asyncio.create_task(_take_away(sandbox, scenario)) if scenario.gone else None
    try:
        if scenario.driver == "cli":
            return await _cli(sandbox, seeded, "first run", scenario.crash_point)
        if scenario.driver == "prefect":
            return await _prefect(sandbox, seeded, "first run")
        return await _plain(sandbox, seeded, "first run", nemeses=True)
    finally:
        if taking is not None:
            taking.cancel()
            await asyncio.gather(taking, return_exceptions=True)


async def _again(sandbox: Any, seeded: Seeded, what: str) -> Command:
    driver = seeded.scenario.driver
    if driver == "cli":
        return await _cli(sandbox, seeded, what, None)
    if driver == "prefect":
        return await _prefect(sandbox, seeded, what)
    return await _plain(sandbox, seeded, what, nemeses=False)


async def _take_away(sandbox: Any, scenario: Scenario) -> None:
    """The RPC or the service gone for good, `gone_after` seconds into the first run."""
    await asyncio.sleep(scenario.gone_after)
    gone = {
        "rpc_blackhole": {"rpc_faults": {"blackhole": 1.0}},
        "rpc_rate_limited": {"rpc_faults": {"rate_limited": 1.0}},
        "api_blackhole": {"api_faults": {"blackhole": 1.0}},
    }[scenario.gone or ""]
    await asyncio.to_thread(set_faults, sandbox, {**scenario.faults, **gone})


async def _plain(sandbox: Any, seeded: Seeded, what: str, *, nemeses: bool) -> Command:
    """The batch in this process (the plain driver), with the harness's own nemeses."""
    scenario = seeded.scenario
    profile = profile_for(sandbox, seeded.home, **seeded.profile(sandbox))
    command, started = Command(what, 0.0), time.monotonic()
    try:
        async with open_context(profile) as ctx:
            if nemeses and scenario.journal_outage:
                JournalOutage(*scenario.journal_outage).arm(ctx.journal)
            thief = (
                lease_thief(profile.journal, seeded.keys, scenario.lease_thief, scenario.seed)
                if nemeses and scenario.lease_thief
                else contextlib.nullcontext()
            )
            async with thief:
                work = asyncio.create_task(
                    run_batch(ctx, seeded.files, concurrency=scenario.concurrency)
                )
                if nemeses and scenario.cancel_after:
                    asyncio.get_running_loop().call_later(scenario.cancel_after, work.cancel)
                try:
                    rows = await asyncio.wait_for(work, BOUND_SECONDS)
                    command.rows = [row.as_json() for row in rows]
                    command.error = ctx.stopped()
                except asyncio.CancelledError:
                    command.killed = True
    except TimeoutError:
        command.error = f"did not end within {BOUND_SECONDS:g} s"
        command.seconds = time.monotonic() - started
        raise check.Broken(f"{what}: {command.error}") from None
    except Exception as exc:  # what the command would print as its one line
        command.error = str(exc)
    command.seconds = time.monotonic() - started
    return command


async def _cli(sandbox: Any, seeded: Seeded, what: str, crash_point: str | None) -> Command:
    """`launchops batch FOLDER --no-prefect --json` as a user runs it, in a process of its
    own; with `crash_point`, the process SIGKILLs itself there (tests/support/crash.py)."""
    args = ["batch", str(seeded.folder), "--no-prefect", "--json"]
    prefix = ["-m", "tests.support.crash", crash_point] if crash_point else ["-m", "launchops.cli"]
    env = {**os.environ, **seeded.env(sandbox), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    started = time.monotonic()
    process = forks.popen(
        [sys.executable, *prefix, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = await asyncio.to_thread(process.communicate, None, BOUND_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        await asyncio.to_thread(process.communicate)
        raise check.Broken(f"{what}: did not end within {BOUND_SECONDS:g} s") from None
    command = Command(what, time.monotonic() - started, killed=process.returncode == -9)
    text = err.decode(errors="replace")
    command.output = out.decode(errors="replace") + text
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    if "Traceback" in text or len(errors) > 1:
        raise check.Broken(f"{what}: stderr is not one line: {text[-1500:]!r}")
    command.error = errors[0] if errors else None
    with contextlib.suppress(ValueError):
        command.rows = json.loads(out)["launches"] if out.strip() else []
    return command


async def _prefect(sandbox: Any, seeded: Seeded, what: str) -> Command:
    """The batch flow in this process (each step a Prefect task), on the session's server."""
    from launchops.flows.batch import batch_flow
    from launchops.flows.outcome import result_of

    command, started = Command(what, 0.0), time.monotonic()
    with _environ(seeded.env(sandbox)):
        try:
            state = await asyncio.wait_for(
                batch_flow(
                    paths=[str(seeded.folder)],
                    concurrency=seeded.scenario.concurrency,
                    return_state=True,
                ),
                BOUND_SECONDS,
            )
            result = await result_of(state)
            command.rows = [dict(row) for row in result.to_json()["launches"]]
            command.error = result.stopped
        except TimeoutError:
            raise check.Broken(f"{what}: did not end within {BOUND_SECONDS:g} s") from None
        except Exception as exc:
            command.error = str(exc)
    command.seconds = time.monotonic() - started
    return command


async def _registrations(sandbox: Any, seeded: Seeded) -> Command:
    """`launchops registrations retry`, in this process."""
    profile = profile_for(sandbox, seeded.home, **seeded.profile(sandbox))
    command, started = Command("registrations retry", 0.0), time.monotonic()
    try:
        async with open_context(profile) as ctx:
            rows = await asyncio.wait_for(retry_registrations(ctx), BOUND_SECONDS)
            command.rows = [row.as_json() for row in rows]
    except Exception as exc:
        command.error = str(exc)
    command.seconds = time.monotonic() - started
    return command


@contextlib.contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
