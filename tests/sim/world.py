"""The world a scenario runs in: one sandbox (its chain, RPC and service, shared by every
seed of a run, each seed's launches named for it), the launch files, the profile with the
timings of a fast world, and the nemeses only the harness can be: a journal that stops
answering, and a second worker that takes leases away."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event

import launchops.web as web
from launchops.journal.store import Journal
from launchops.sandbox.faults import Faults
from tests.sim.scenario import Scenario
from tests.support.pipeline import write_launch

# A fast world, time scaled down about tenfold: slots of 10 ms (a blockhash lives 1.5 s),
# an answer awaited half a second, an RPC or a service that gives nothing usable for 3 s
# gone for the run (the retries' waits scale with those deadlines).
SLOT_MS = 10
PROFILE: dict[str, Any] = {
    "poll_seconds": 0.01,
    "rebroadcast_seconds": 0.05,
    "timeout_seconds": 0.5,
    "rpc_call_seconds": 3.0,
    "service_call_seconds": 3.0,
    "stale_answers_seconds": 3.0,
    "step_seconds": 30.0,
    "register_index_seconds": 2.0,
    "lease_seconds": 1.0,
    "create_attempts": 3,
}


@dataclass
class Seeded:
    """One seed's place in the world: its folder, its launch files, its launches' names."""

    scenario: Scenario
    home: Path
    folder: Path
    files: list[Path]
    names: dict[str, str]  # launch key -> the token name the service keeps

    @property
    def keys(self) -> list[str]:
        return list(self.names)

    @property
    def secrets(self) -> tuple[str, str]:
        """The RPC URL's API key and the service URL's password, the seed's own: as a
        provider's URL carries them, and never in anything launchops shows or keeps."""
        digest = hashlib.sha256(f"sim-{self.scenario.seed}".encode()).hexdigest()
        return f"rpcK{digest[:20]}", f"svcP{digest[20:40]}"

    def urls(self, sandbox: Any) -> dict[str, str]:
        """The service and RPC URLs, each with its secret in it."""
        api_key, password = self.secrets
        return {
            "base_url": sandbox.base_url.replace("://", f"://sim:{password}@", 1),
            "rpc_url": f"{sandbox.rpc_url}/?api-key={api_key}",
        }

    def env(self, sandbox: Any) -> dict[str, str]:
        """LAUNCHOPS_* settings of this seed's profile, for a process or a flow."""
        urls = self.urls(sandbox)
        values = {
            "LAUNCHOPS_HOME": str(self.home),
            "LAUNCHOPS_BASE_URL": urls["base_url"],
            "LAUNCHOPS_RPC_URL": urls["rpc_url"],
            "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
            "LAUNCHOPS_WS_URL": "" if self.scenario.ws else "none",
            **{f"LAUNCHOPS_{name.upper()}": str(value) for name, value in PROFILE.items()},
        }
        if self.scenario.ws:
            del values["LAUNCHOPS_WS_URL"]
        if self.scenario.landing:
            values["LAUNCHOPS_LANDING"] = json.dumps(self.scenario.landing)
        return values

    def profile(self, sandbox: Any) -> dict[str, Any]:
        """The same settings as profile overrides, for an in-process run."""
        landing = {"landing": self.scenario.landing} if self.scenario.landing else {}
        ws = {"ws_url": None if self.scenario.ws else "none"}
        return {**PROFILE, **self.urls(sandbox), **ws, **landing}


def place(scenario: Scenario, root: Path) -> Seeded:
    """Write the scenario's launch files (names unique to the seed) under `root`."""
    home, folder = root / "home", root / "launches"
    files, names = [], {}
    for index, form in enumerate(scenario.forms):
        key = f"sim-{scenario.seed}-{index}"
        name = f"Sim {scenario.seed} L{index}"
        files.append(write_launch(folder, f"{key}.yaml", form, key, name=name, symbol=f"S{index}"))
        names[key] = name
    return Seeded(scenario, home, folder, files, names)


# ── the sandbox ─────────────────────────────────────────────────────────────


def set_faults(sandbox: Any, faults: dict[str, Any]) -> None:
    """Every fault of the sandbox to its default, then `faults` over them."""
    body = {**Faults().model_dump(), **faults}
    answer = web.put(f"{sandbox.url}/_sandbox/faults", json=body, timeout=10)
    assert answer.status_code == 200, answer.text


def stranger_lamports(sandbox: Any) -> int:
    """What the stranger a compromised service pays holds (as the service keeps it)."""
    answer = web.get(f"{sandbox.url}/_sandbox/launches", timeout=10)
    answer.raise_for_status()
    return int(answer.json()["stranger"]["lamports"])


def creates(sandbox: Any) -> list[dict[str, Any]]:
    """Every create the service answered, with whether its mint is on chain."""
    answer = web.get(f"{sandbox.url}/_sandbox/launches", timeout=10)
    answer.raise_for_status()
    return answer.json()["launches"]


# ── nemeses of the harness's own ────────────────────────────────────────────


class JournalOutage:
    """SQLite interrupting every statement (as a database that stopped answering: the
    driver raises its OperationalError) for `seconds` from `after` seconds on, in the
    journal of an in-process run."""

    def __init__(self, after: float, seconds: float) -> None:
        self.start = time.monotonic() + after
        self.end = self.start + seconds

    def arm(self, journal: Journal) -> None:
        event.listen(journal.engine, "connect", self._on_connect)
        journal.engine.dispose()  # the pooled connections go; new ones carry the handler

    def _on_connect(self, connection: sqlite3.Connection, _: Any) -> None:
        connection.set_progress_handler(self._interrupt, 1)

    def _interrupt(self) -> int:
        return 1 if self.start <= time.monotonic() < self.end else 0


@contextlib.asynccontextmanager
async def lease_thief(
    journal_url: str, keys: list[str], every: float, seed: int
) -> AsyncIterator[None]:
    """A second worker that, every `every` seconds, takes the lease of one of `keys` from
    whoever holds it (as it would from a worker it took for dead), for half a second."""
    rng = random.Random(seed)
    journal = await Journal.open(journal_url)

    async def steal() -> None:
        while True:
            await asyncio.sleep(every)
            key = rng.choice(keys)
            with contextlib.suppress(Exception):
                record = await journal.get(key)
                if record is not None and record.lease_owner:
                    await journal.take_over(key, record.lease_owner, "thief:0:sim", 0.5, "thief")

    task = asyncio.create_task(steal())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await journal.close()
