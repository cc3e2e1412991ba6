"""A launch file's `schedule:`: one time, written with its time zone, or a cron expression
(UTC). The file's own deployment (`launchops deploy --launches`) launches it then: a
batch leaves such a file alone, and `launchops launch` asks for `--now` while its time is
ahead. Reading a schedule makes no network call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from launchops.errors import ScheduledLater

ZONE_HINT = (
    "write it with its time zone, e.g. 2027-06-01T15:00:00Z (UTC) or 2027-06-01T15:00:00+02:00"
)
FORM_HINT = (
    "must be a time with its zone (2027-06-01T15:00:00Z) or a cron expression like '0 * * * *'"
)
_CRON_FIELD = re.compile(r"^[0-9A-Za-z*/,?#LW-]+$")


@dataclass(frozen=True)
class Schedule:
    """A schedule as written (`text`), and its one time in UTC (`at`; None: a cron
    expression, in UTC, that fires again and again)."""

    text: str
    at: datetime | None = None

    @classmethod
    def parse(cls, value: Any) -> Schedule:
        """The schedule `value` names: a time with its zone, or a cron expression of 5 or 6
        fields. A ValueError saying what is wrong otherwise; a time without a zone among
        them (YAML reads an unquoted one as a datetime, or a date, with none)."""
        if isinstance(value, date):  # YAML's own reading of an unquoted time
            text = value.isoformat().replace("+00:00", "Z")
        elif isinstance(value, str):
            text = value.strip()
        else:
            raise ValueError(FORM_HINT)
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            fields = text.split()
            if len(fields) not in (5, 6) or not all(_CRON_FIELD.match(f) for f in fields):
                raise ValueError(FORM_HINT) from None
            return cls(text)
        if when.tzinfo is None:
            raise ValueError(f"the time {text!r} has no time zone; {ZONE_HINT}")
        return cls(text, when.astimezone(UTC))

    @property
    def shown(self) -> str:
        """What a report shows: the time in UTC (`2027-06-01T13:00:00Z`), or the expression."""
        return _utc(self.at) if self.at is not None else self.text

    def next_run(self, now: datetime) -> datetime | None:
        """When it fires next after `now`: its time if still ahead; a cron expression's next
        match (None when it cannot be worked out here: a 6-field expression)."""
        if self.at is not None:
            return self.at if self.at > now else None
        fields = self.text.split()
        if len(fields) != 5:
            return None
        from cronsim import CronSim, CronSimError

        try:
            return next(CronSim(self.text, now.astimezone(UTC)))
        except (CronSimError, StopIteration):
            return None

    def ahead(self, now: datetime) -> bool:
        """Whether it fires later than `now`: a time still to come, or any cron expression."""
        return self.at is None or self.at > now


def file_schedule(path: Path) -> Schedule | None:
    """The schedule a launch file gives; None when it gives none, or cannot be read or
    has a schedule that is not one (its validation says why)."""
    data = _read(path)
    if data is None or data.get("schedule") is None:
        return None
    try:
        return Schedule.parse(data["schedule"])
    except ValueError:
        return None


def declares_schedule(path: Path) -> bool:
    """Whether a launch file has a `schedule:` at all (a valid one or not)."""
    data = _read(path)
    return data is not None and data.get("schedule") is not None


def refuse_early(path: Path, now: datetime | None = None) -> None:
    """Raise ScheduledLater when the launch file at `path` is scheduled later than `now`
    (a time still to come, or a cron expression): its deployment launches it then."""
    now = now or datetime.now(UTC)
    schedule = file_schedule(path)
    if schedule is None or not schedule.ahead(now):
        return
    if schedule.at is not None:
        when = f"is scheduled for {schedule.shown}, {_span(schedule.at - now)} from now"
    else:
        when = f"is scheduled on cron {schedule.text!r} (UTC)"
        upcoming = schedule.next_run(now)
        if upcoming is not None:
            when += f", next {_utc(upcoming)}, {_span(upcoming - now)} from now"
    raise ScheduledLater(
        f"{path} {when}: its deployment (launchops deploy --launches {path}) launches it "
        "then; --now launches it now"
    )


# A one-off time must be this far ahead when its deployment is made: the deployment made,
# and the server's scheduler (every few seconds) seen it, before the time comes.
DEPLOY_LEAD_SECONDS = 30


def too_soon_to_deploy(path: Path, schedule: Schedule, now: datetime | None = None) -> str | None:
    """Why the one-off `schedule` of the file at `path` cannot be deployed now (None: it
    can): its time is past, or less than DEPLOY_LEAD_SECONDS ahead, and a deployment made
    after its time would never fire."""
    now = now or datetime.now(UTC)
    if schedule.at is None or schedule.at - now >= timedelta(seconds=DEPLOY_LEAD_SECONDS):
        return None
    when = (
        f"{_span(now - schedule.at)} ago"
        if schedule.at <= now
        else f"only {_span(schedule.at - now)} from now"
    )
    return (
        f"{path}: schedule: {schedule.shown} is {when}; a one-off time must be at least "
        f"{DEPLOY_LEAD_SECONDS} s ahead when deployed (a deployment made after its time never "
        f"fires): set a later time, or launch it now with launchops launch {path} --now"
    )


def _read(path: Path) -> dict[str, Any] | None:
    from launchops.config.reader import FileReader

    return FileReader(path).read()


def _utc(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _span(delta: timedelta) -> str:
    """`3 h 0 min`, `45 s`, `2 d 4 h`: how far ahead, to the unit that matters."""
    seconds = max(int(delta.total_seconds()), 0)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"


__all__ = [
    "FORM_HINT",
    "ZONE_HINT",
    "Schedule",
    "declares_schedule",
    "file_schedule",
    "refuse_early",
]
