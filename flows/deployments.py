"""Deployments with schedules: the batch flow and the registration retry on cron, and one
deployment per launch file that carries `schedule:` (a cron expression or one time).

`launchops deploy --serve` serves them from this process (`prefect.serve`); with
`--pool NAME` they are registered on a Prefect server for `prefect worker start --pool
NAME` processes, on any machine with this checkout, to run.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from launchops.flows.batch import batch_flow, batch_part_flow
from launchops.flows.launch import launch_flow
from launchops.flows.registrations import registrations_flow
from prefect.schedules import Cron, RRule, Schedule, validate_cron_string

from launchops.api.errors import LaunchOpsError

ROOT = Path(__file__).resolve().parent.parent


def schedule_of(text: str) -> Schedule:
    """A cron expression, or an ISO 8601 time for a single run."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            validate_cron_string(text)
        except ValueError as exc:
            raise LaunchOpsError(
                f"schedule {text!r} is neither a time nor a cron expression: {exc}"
            ) from None
        return Cron(text, timezone="UTC")
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return RRule(f"DTSTART:{when:%Y%m%dT%H%M%SZ}\nRRULE:FREQ=DAILY;COUNT=1", timezone="UTC")


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
) -> list[Any]:
    """The deployments to apply; `scheduled` holds (key, file, schedule) of launch files."""

    def flow_for(flow: Any, entrypoint: str) -> Any:
        # A worker loads the flow from this checkout; serving uses it as imported.
        return flow.from_source(str(ROOT), entrypoint) if from_source else flow

    deployments = []
    if batch_paths and batch_cron:
        deployments.append(
            _deploy(
                flow_for(batch_flow, "flows/batch.py:batch_flow"),
                f"batch-{profile}",
                [Cron(batch_cron, timezone="UTC")],
                {"paths": [str(Path(p).resolve()) for p in batch_paths], "profile": profile},
            )
        )
    if from_source:  # on a pool: the share of a batch another worker runs
        deployments.append(
            _deploy(
                flow_for(batch_part_flow, "flows/batch.py:batch_part_flow"),
                f"batch-part-{profile}",
                [],
                {"keys": [], "profile": profile},
            )
        )
    if retry_cron:
        deployments.append(
            _deploy(
                flow_for(registrations_flow, "flows/registrations.py:registrations_flow"),
                f"registration-retry-{profile}",
                [Cron(retry_cron, timezone="UTC")],
                {"profile": profile, "older_than_seconds": 300.0},
            )
        )
    for key, file, when in scheduled:
        deployments.append(
            _deploy(
                flow_for(launch_flow, "flows/launch.py:launch_flow"),
                f"launch-{key}",
                [schedule_of(when)],
                {"path": str(file.resolve()), "profile": profile},
            )
        )
    watched = [str(Path(p).resolve()) for p in batch_paths]
    deployments += _after_launch(profile, claim_wallets, claim_cron, watch_cron, watched, flow_for)
    return deployments


def _after_launch(
    profile: str,
    claim_wallets: str | None,
    claim_cron: str | None,
    watch_cron: str | None,
    watched: list[str],
    flow_for: Any,
) -> list[Any]:
    """The creator-reward claims of a wallets file, and the launch watch (of the batch's
    launches, else the journal's), on their crons."""
    from launchops.flows.rewards import claim_rewards_flow
    from launchops.flows.watch import watch_launches_flow

    found = []
    if claim_wallets and claim_cron:
        found.append(
            _deploy(
                flow_for(claim_rewards_flow, "flows/rewards.py:claim_rewards_flow"),
                f"claim-rewards-{profile}",
                [Cron(claim_cron, timezone="UTC")],
                {"wallets": str(Path(claim_wallets).resolve()), "profile": profile},
            )
        )
    if watch_cron:
        found.append(
            _deploy(
                flow_for(watch_launches_flow, "flows/watch.py:watch_launches_flow"),
                f"watch-launches-{profile}",
                [Cron(watch_cron, timezone="UTC")],
                {"profile": profile, "paths": watched or None},
            )
        )
    return found


def _deploy(flow: Any, name: str, schedules: list[Schedule], parameters: dict[str, Any]) -> Any:
    return flow.to_deployment(
        name=name, schedules=schedules, parameters=parameters, tags=["launchops"]
    )
