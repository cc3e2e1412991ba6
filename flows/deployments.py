"""Deployments with schedules: the batch flow and the registration retry on cron, and one
deployment per launch file that carries `schedule:` (a cron expression or one time).

`launchops deploy --serve` serves them from this process (`prefect.serve`); with
`--pool NAME` they are registered on a Prefect server for `prefect worker start --pool
NAME` processes, on any machine with this checkout, to run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from launchops.flows.batch import batch_flow, batch_part_flow
from launchops.flows.launch import launch_flow
from launchops.flows.registrations import registrations_flow
from prefect.schedules import Cron, RRule, Schedule, validate_cron_string

from launchops.api.errors import LaunchOpsError
from launchops.config.schedule import Schedule as LaunchSchedule

ROOT = Path(__file__).resolve().parent.parent


def schedule_of(text: str) -> Schedule:
    """A cron expression (UTC), or a time with its zone for a single run."""
    try:
        parsed = LaunchSchedule.parse(text)
    except ValueError as exc:
        raise LaunchOpsError(f"schedule {text!r}: {exc}") from None
    if parsed.at is None:
        try:
            validate_cron_string(text)
        except ValueError as exc:
            raise LaunchOpsError(f"schedule {text!r} is not a cron expression: {exc}") from None
        return Cron(text, timezone="UTC")
    return RRule(f"DTSTART:{parsed.at:%Y%m%dT%H%M%SZ}\nRRULE:FREQ=DAILY;COUNT=1", timezone="UTC")


Wanted = tuple[Any, str, list[Schedule], dict[str, Any]]  # flow, name, schedules, parameters


def build(
    *,
    profile: str,
    batch_paths: list[str],
    batch_cron: str | None,
    retry_cron: str | None,
    scheduled: list[tuple[str, Path, str]],
    from_source: bool,
    claim_wallets: str | None = None,
    claim_cron: str | None = None,
    watch_cron: str | None = None,
    base_url: str | None = None,
) -> list[Any]:
    """The deployments to apply; `scheduled` holds (key, file, schedule) of launch files;
    every flow run takes the profile (and `base_url` over its service, when given)."""
    common: dict[str, Any] = {"profile": profile}
    if base_url:
        common["base_url"] = base_url
    batch = [str(Path(p).resolve()) for p in batch_paths]
    wanted: list[Wanted] = []
    if batch and batch_cron:
        wanted.append((batch_flow, f"batch-{profile}", [_cron(batch_cron)], {"paths": batch}))
    if from_source:  # on a pool: the share of a batch another worker runs
        wanted.append((batch_part_flow, f"batch-part-{profile}", [], {"batch": ""}))
    if retry_cron:
        again = {"older_than_seconds": 300.0}
        wanted.append(
            (registrations_flow, f"registration-retry-{profile}", [_cron(retry_cron)], again)
        )
    for key, file, when in scheduled:
        # `now`: the run its schedule makes is the launch's time come (a cron's every run,
        # and a one-off time even on a worker whose clock is a little behind the server's).
        launch = {"path": str(file.resolve()), "now": True}
        wanted.append((launch_flow, f"launch-{key}", [schedule_of(when)], launch))
    wanted += _after_launch(profile, claim_wallets, claim_cron, watch_cron, batch)
    return [
        _deploy(flow, name, schedules, {**parameters, **common}, from_source)
        for flow, name, schedules, parameters in wanted
    ]


def _after_launch(
    profile: str,
    claim_wallets: str | None,
    claim_cron: str | None,
    watch_cron: str | None,
    watched: list[str],
) -> list[Wanted]:
    """The creator-reward claims of a wallets file, and the launch watch (of the batch's
    launches, else the journal's), on their crons."""
    from launchops.flows.rewards import claim_rewards_flow
    from launchops.flows.watch import watch_launches_flow

    found: list[Wanted] = []
    if claim_wallets and claim_cron:
        wallets = {"wallets": str(Path(claim_wallets).resolve())}
        found.append((claim_rewards_flow, f"claim-rewards-{profile}", [_cron(claim_cron)], wallets))
    if watch_cron:
        paths = {"paths": watched or None}
        found.append((watch_launches_flow, f"watch-launches-{profile}", [_cron(watch_cron)], paths))
    return found


def _cron(text: str) -> Schedule:
    return Cron(text, timezone="UTC")


def _deploy(
    flow: Any, name: str, schedules: list[Schedule], parameters: dict[str, Any], from_source: bool
) -> Any:
    """The deployment of `flow`: loaded by a worker from this checkout (`from_source`, its
    entrypoint `flows/MODULE.py:FUNCTION`), or served as imported."""
    if from_source:
        module = flow.fn.__module__.rsplit(".", 1)[-1]
        flow = flow.from_source(str(ROOT), f"flows/{module}.py:{flow.fn.__name__}")
    return flow.to_deployment(
        name=name, schedules=schedules, parameters=parameters, tags=["launchops"]
    )
