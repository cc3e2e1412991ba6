"""A scenario of the simulation, drawn from one seed: the launches, the driver, and the
faults of every kind the world knows, composed at random (FoundationDB's simulation
testing; Jepsen's nemeses). The same seed draws the same scenario, always.

The faults are the sandbox's own (its chain, its RPC and its service: `launchops.sandbox`
`.faults`), plus what only the harness can do: kill the command at a crash point (a real
SIGKILL, tests/support/crash.py), cancel it mid-flight, cut the journal's database for a
while, take leases away as a second worker would, and take the RPC or the service away
for good during the first run.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from launchops.sandbox.compromise import ATTACKS
from tests.support.crash import MOMENTS

# What a lagging, overloaded or broken node answers (the sandbox's ERRORS, BROKEN, SHAPES):
# asked again, each must be ridden over.
TRANSIENT = [
    "behind",
    "unhealthy",
    "unhealthy_no_data",
    "block_not_available",
    "block_status_not_available",
    "slot_skipped",
    "min_context_slot",
    "internal",
    "http_502",
    "http_504",
    "not_json",
    "truncated",
    "wrong_shape",
    "huge_number",
    "null_result",
]
# A node that answers wrongly without saying so.
LIES = ["failed_processed", "no_history", "fork", "stale", "wrong_id", "swapped"]
# Answers that never come, or come as "not now".
OUTAGES = ["blackhole", "lost_answer"]
READS = ["getSignatureStatuses", "getEpochInfo", "getBlockHeight", "getMultipleAccounts"]
API_FAULTS = ["cdn_challenge", "http_502_html", "http_503_html", "lost_answer", "blackhole"]
API_ENDPOINTS = ["POST /v1/launches/create", "POST /v1/launches/register"]
FORMS = ["launchpool", "presale", "allocations"]
CRASH_POINTS = [moment.name for moment in MOMENTS]
GONE = ["rpc_blackhole", "rpc_rate_limited", "api_blackhole"]


@dataclass(frozen=True)
class Scenario:
    """Everything one seed decided (see the module's text); `describe()` prints it."""

    seed: int
    driver: str  # plain (in process), cli (a `launchops batch` process), prefect (the flow)
    launches: int
    forms: tuple[str, ...]
    concurrency: int
    ws: bool  # PubSub on (else status polling only)
    faults: dict[str, Any]  # PUT /_sandbox/faults, for every run
    first_only: dict[str, Any]  # added for the first run only (outages, lost answers)
    crash_point: str | None  # the first run SIGKILLs itself there (cli driver)
    cancel_after: float | None  # the first run is cancelled after this many seconds
    gone: str | None  # the RPC or the service taken away for good during the first run
    gone_after: float
    journal_outage: tuple[float, float] | None  # (after, for) seconds: SQLite refuses
    lease_thief: float | None  # a second worker takes a lease every this many seconds
    fail_tail: bool  # one launch's later transactions fail on chain (a person's case)
    pause: float  # seconds before the user runs it again (blockhashes die, nodes forget)
    landing: dict[str, Any] = field(default_factory=dict)  # the profile's landing: section
    # The service compromised for the first run's first creates, one attack each (drawn
    # apart, from "compromise SEED", so the seeds drawn before it keep their scenario).
    compromised: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """The scenario as one JSON object, for a failing seed's report."""
        return json.dumps(asdict(self), sort_keys=True)


def _rates(rng: random.Random, names: list[str], most: int, top: float) -> dict[str, float]:
    """Up to `most` of `names`, each for every method or one read, at rates up to `top`."""
    chosen: dict[str, float] = {}
    for name in rng.sample(names, rng.randint(0, most)):
        key = name if rng.random() < 0.5 else f"{name}@{rng.choice(READS)}"
        chosen[key] = round(rng.uniform(0.02, top), 3)
    return chosen


def draw(seed: int, *, drivers: tuple[str, ...] = ("plain",)) -> Scenario:
    """The scenario of `seed`; `drivers` are those this run may use (cli and prefect cost
    seconds of process or server start a seed, so a run chooses how many it affords).
    The driver is drawn apart, and every other value is drawn whatever the driver: one
    seed is one scenario, whichever drivers a run allows (those a driver cannot have are
    left out after the draw)."""
    driver = random.Random(f"driver {seed}").choice(drivers)
    rng = random.Random(seed)
    launches = rng.randint(1, 4)
    faults = _faults(rng)
    first_only: dict[str, Any] = {}
    if rng.random() < 0.3:
        first_only["rpc_faults"] = {**faults["rpc_faults"], **_rates(rng, OUTAGES, 1, 0.1)}
    fail_tail = rng.random() < 0.08
    if fail_tail:
        faults["fail_tail_next"] = 1
    crash_point = rng.choice(CRASH_POINTS) if rng.random() < 0.7 else None
    cancel_after = round(rng.uniform(0.2, 4.0), 2) if rng.random() < 0.25 else None
    gone = rng.choice(GONE) if rng.random() < 0.12 else None
    journal_outage = (round(rng.uniform(0.2, 2.0), 2), round(rng.uniform(0.2, 1.5), 2))
    journal_outage = journal_outage if rng.random() < 0.15 else None
    landing = _landing(seed, faults)
    lease_thief = round(rng.uniform(0.3, 1.5), 2) if rng.random() < 0.15 else None
    in_process = driver == "plain"  # what only an in-process run can have done to it
    if driver != "cli":
        crash_point = None
    if not in_process:
        cancel_after = journal_outage = lease_thief = None
    return Scenario(
        seed=seed,
        driver=driver,
        launches=launches,
        forms=tuple(rng.choice(FORMS) for _ in range(launches)),
        concurrency=rng.randint(1, 4),
        ws=rng.random() < 0.5,
        faults=faults,
        first_only=first_only,
        crash_point=crash_point,
        cancel_after=cancel_after,
        gone=gone,
        gone_after=round(rng.uniform(0.0, 2.0), 2),
        journal_outage=journal_outage,
        lease_thief=lease_thief,
        fail_tail=fail_tail,
        pause=rng.choice([0.0, 0.0, 0.5, 2.0]),
        landing=landing,
        compromised=_compromised(seed, first_only),
    )


def _compromised(seed: int, first_only: dict[str, Any]) -> tuple[str, ...]:
    """A compromised service for the first run: one attack, or several at once (each the
    answer to one create), in a quarter of the seeds."""
    rng = random.Random(f"compromise {seed}")
    if rng.random() >= 0.25:
        return ()
    attacks = tuple(rng.sample(ATTACKS, rng.choice([1, 1, 2, 3])))
    first_only["compromised_next"] = list(attacks)
    return attacks


def _faults(rng: random.Random) -> dict[str, Any]:
    """The sandbox's faults for the whole run (drawn in this order: a seed's scenario must
    not change)."""
    faults: dict[str, Any] = {
        "drop_rate": rng.choice([0.0, 0.0, 0.2, 0.5]),
        "delay_slots": rng.choice([0, 0, 1, 3]),
        "expire_next": rng.choice([0, 0, 1, 2]),
        "rpc_faults": {
            **_rates(rng, TRANSIENT, 3, 0.15),
            **_rates(rng, LIES, 3, 0.35),
        },
        "api_error_rate": rng.choice([0.0, 0.0, 0.1]),
        "register_unindexed_slots": rng.choice([0, 0, 5]),
    }
    if rng.random() < 0.15:  # a node without transaction history, as most are
        faults["rpc_faults"]["no_history"] = 1.0
    if rng.random() < 0.3:  # status reads (or every read) from a node behind
        where = rng.choice(["getSignatureStatuses", "*"])
        faults["rpc_lag_slots"] = {where: rng.choice([20, 200])}
        faults["rpc_lag_seconds"] = rng.choice([0.0, 2.0])
    if rng.random() < 0.3:
        where = f"{rng.choice(API_FAULTS)}@{rng.choice(API_ENDPOINTS)}"
        faults["api_faults"] = {where: round(rng.uniform(0.05, 0.3), 3)}
    if rng.random() < 0.2:
        faults["pubsub_hang"] = 1.0
    return faults


def _landing(seed: int, faults: dict[str, Any]) -> dict[str, Any]:
    """How the seed's launches reach the leader, and how busy the cluster is: plain sends
    or Jito bundles (a tip floor above the first tip passing bundles over until a create
    again tips more), on a quiet or a congested cluster. Drawn apart (from "landing SEED"),
    so the seeds drawn before bundles existed keep their scenario."""
    rng = random.Random(f"landing {seed}")
    if rng.random() < 0.3:
        faults["congestion"] = rng.choice([0.5, 0.9])
    if rng.random() >= 0.35:
        return {}
    if rng.random() < 0.3:
        faults["tip_floor_lamports"] = rng.choice([1500, 3000])
    return {"mode": "bundle", "tip_lamports": 1000, "max_tip_lamports": 4000}
