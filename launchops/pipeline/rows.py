"""A batch's rows and its reports: where each file of a batch stands, counted by state,
and written as JSON and CSV (camelCase, as the service spells its JSON)."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from launchops.states import Kind, LaunchState, done

_CAMEL = {
    "launch_page": "launchPage",
    "scheduled_for": "scheduledFor",
    "lamports_spent": "lamportsSpent",
    "tip_lamports": "tipLamports",
    "from_journal": "fromJournal",
}


class RowStatus(StrEnum):
    """Where a batch row stands when it is not (or not yet) at a launch's state."""

    PENDING = "pending"
    RUNNING = "running"
    INVALID = "invalid"  # the file failed validation
    UNFINISHED = "unfinished"  # not finished by this run: its RPC, service or journal failed
    DUPLICATE = "duplicate"  # the same launch as another file of the batch
    ELSEWHERE = "elsewhere"  # another worker has the launch
    SCHEDULED = "scheduled"  # the file has a schedule: its own deployment launches it then


@dataclass
class BatchRow:
    """One launch of a batch, as the reports show it. `state` is the one thing that says
    where it stands (the batch's own status, or its launch's state once it ran); every
    question about the row is asked of it."""

    file: str
    key: str | None = None
    state: LaunchState | RowStatus = RowStatus.PENDING
    launch_page: str | None = None
    mint: str | None = None
    error: str | None = None
    worker: str | None = None  # who worked it last (the journal's launch row)
    agent: str | None = None  # a transfer's agent
    amount: str | None = None  # a transfer's SOL
    signature: str | None = None  # a transfer's (last) signature
    scheduled_for: str | None = None  # a scheduled file's time (UTC), or its cron expression
    lamports_spent: int | None = None  # fees and tips its attempts took (a launch's)
    tip_lamports: int | None = None  # tips paid to a block engine, of those
    sniped: int | None = None  # buys of others between its create and its first buy
    from_journal: bool = False  # finished before this run: reported, nothing was done
    kind: Kind = Kind.LAUNCH  # what `state` means by finished (not in the reports)

    def as_json(self) -> dict[str, Any]:
        """The row as every report and JSON output names it: camelCase, as the result JSON
        and the service do; `ok` is `finished_or_elsewhere`."""
        fields = asdict(self)
        del fields["kind"]
        named: dict[str, Any] = {}
        for name, value in fields.items():
            named[_CAMEL.get(name, name)] = value
            if name == "error":  # where the reports have always had it
                named["ok"] = self.finished_or_elsewhere
        return named

    @property
    def underway(self) -> bool:
        """Not yet worked to an end in this run: waiting for its turn, or running."""
        return self.state in (RowStatus.PENDING, RowStatus.RUNNING)

    @property
    def finished(self) -> bool:
        """Finished for good (registered, a transfer confirmed): nothing left for anyone."""
        return isinstance(self.state, LaunchState) and done(self.state, self.kind)

    @property
    def finished_or_elsewhere(self) -> bool:
        """Nothing left for this batch: finished, another worker has it, or its own
        deployment launches it at its time (scheduled)."""
        return self.finished or self.state in (RowStatus.ELSEWHERE, RowStatus.SCHEDULED)

    @property
    def runnable(self) -> bool:
        """A launch of its own in the journal, for this batch to run: neither an invalid
        file, nor a duplicate, nor a file its own schedule launches."""
        return self.state not in (RowStatus.INVALID, RowStatus.DUPLICATE, RowStatus.SCHEDULED)


def counts(rows: list[BatchRow]) -> dict[str, int]:
    """How many rows are in each state, by state (sorted by name)."""
    found: dict[str, int] = {}
    for row in rows:
        found[row.state] = found.get(row.state, 0) + 1
    return dict(sorted(found.items()))


def spent(rows: list[BatchRow]) -> dict[str, int]:
    """The batch's total of lamports spent (fees and tips) and of tips among them."""
    return {
        "lamportsSpent": sum(row.lamports_spent or 0 for row in rows),
        "tipLamports": sum(row.tip_lamports or 0 for row in rows),
    }


def write_reports(rows: list[BatchRow], folder: Path, name: str) -> tuple[Path, Path]:
    """`<name>.json` and `<name>.csv` in `folder`: key, state, page, mint, error, lamports
    spent per launch (and the batch's total in the JSON). A report of the same name (a run
    in the same second) is never written over: this one is `<name>-2`, and so on."""
    folder.mkdir(parents=True, exist_ok=True)
    records = [row.as_json() for row in rows]
    document = {"counts": counts(rows), "spent": spent(rows), "launches": records}
    as_json = _new_file(folder, name, json.dumps(document, indent=2) + "\n")
    as_csv = as_json.with_suffix(".csv")
    with as_csv.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(BatchRow(file="").as_json()))
        writer.writeheader()
        writer.writerows(records)
    return as_json, as_csv


def _new_file(folder: Path, name: str, text: str) -> Path:
    """`folder/<name>.json` made with `text`, or `<name>-2.json` and on if it is there."""
    for number in range(1, 1000):
        path = folder / (f"{name}.json" if number == 1 else f"{name}-{number}.json")
        try:
            with path.open("x") as file:  # made here, or taken: the next number
                file.write(text)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: reports {name}.json to {name}-999.json all exist")


def report_name(prefix: str) -> str:
    """A report's file name without its suffix: `prefix` and the UTC time to the second,
    e.g. `batch-20250101T120000Z`."""
    return f"{prefix}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}"


def batch_result(
    rows: list[BatchRow], folder: Path, prefix: str, stopped: str | None = None
) -> dict[str, Any]:
    """Write the reports and answer what the commands print: counts, launches, report paths,
    `ok` (every row finished, left to another worker, or to its own schedule) and
    `stopped`: why the run stopped starting launches (its RPC or service gone), if it did."""
    as_json, as_csv = write_reports(rows, folder, report_name(prefix))
    return {
        "ok": all(row.finished_or_elsewhere for row in rows) and stopped is None,
        "stopped": stopped,
        "counts": counts(rows),
        "spent": spent(rows),
        "launches": [row.as_json() for row in rows],
        "reports": {"json": str(as_json), "csv": str(as_csv)},
    }


__all__ = [
    "BatchRow",
    "RowStatus",
    "batch_result",
    "counts",
    "report_name",
    "spent",
    "write_reports",
]
