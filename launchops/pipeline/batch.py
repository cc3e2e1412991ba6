"""Many launches at once, and mopping up registrations, over the same steps.

A batch validates every file, then runs the launches with at most `concurrency` in
flight (the API and RPC rate limits of the context are shared by all of them). One
launch failing never stops the others; a launch another worker holds is left to it. A
batch is resumable as a whole: re-running it reports what finished and continues the rest.

When the RPC or the service is gone for the run (`launchops.retries.Outage`), no launch is
started any more: those in flight end at their next call, the rest are reported
`unfinished`, and the result says why (`stopped`). A journal that stops answering ends
the rows it cannot finish as `unfinished` too, with the report written all the same.
"""

from __future__ import annotations

import asyncio
import csv
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

from launchops.errors import LaunchOpsError, LeaseError
from launchops.journal.records import LaunchRecord
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.runner import StepCaller, run_launch, run_step, validate
from launchops.states import REGISTRABLE, Driver, Kind, LaunchState, done

Validator = Callable[[LaunchContext, Path], Awaitable[str]]
Update = Callable[["BatchRow"], None]
log = logging.getLogger(__name__)


_CAMEL = {"launch_page": "launchPage"}


class RowStatus(StrEnum):
    """Where a batch row stands when it is not (or not yet) at a launch's state."""

    PENDING = "pending"
    RUNNING = "running"
    INVALID = "invalid"  # the file failed validation
    UNFINISHED = "unfinished"  # not finished by this run: its RPC, service or journal failed
    DUPLICATE = "duplicate"  # the same launch as another file of the batch
    ELSEWHERE = "elsewhere"  # another worker has the launch


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
        """Nothing left for this worker: finished, or another worker has it."""
        return self.finished or self.state is RowStatus.ELSEWHERE

    @property
    def runnable(self) -> bool:
        """A launch of its own in the journal: neither an invalid file nor a duplicate."""
        return self.state not in (RowStatus.INVALID, RowStatus.DUPLICATE)


def _unheard(row: BatchRow) -> None:
    """The update callback when nobody listens."""


async def _validate_key(ctx: LaunchContext, path: Path) -> str:
    return (await validate(ctx, path)).key


async def run_batch(
    ctx: LaunchContext,
    paths: list[Path],
    *,
    concurrency: int | None = None,
    call: StepCaller = run_step,
    check: Validator = _validate_key,
    on_update: Update | None = None,
) -> list[BatchRow]:
    """Run every launch file; each row ends registered, or with its state and reason."""
    rows = [BatchRow(file=str(path)) for path in paths]
    notify = on_update or _unheard
    seen: dict[str, BatchRow] = {}

    async def one(row: BatchRow) -> None:
        # Validated inside its slot: the first launches start at once, not after every file.
        if not _stopped(ctx, row, notify) and await _recorded(ctx, row, check, seen, notify):
            await _work(ctx, row, call, notify)

    for row in rows:
        notify(row)
    await _bounded(rows, concurrency or ctx.profile.concurrency, one)
    return rows


async def record_files(
    ctx: LaunchContext,
    paths: list[Path],
    *,
    concurrency: int | None = None,
    check: Validator = _validate_key,
    on_update: Update | None = None,
) -> list[BatchRow]:
    """Validate every file into the journal first (for a batch shared by several workers):
    rows with their key, or invalid, or the same launch as an earlier file."""
    rows = [BatchRow(file=str(path)) for path in paths]
    notify = on_update or _unheard
    seen: dict[str, BatchRow] = {}

    async def one(row: BatchRow) -> None:
        await _recorded(ctx, row, check, seen, notify)

    await _bounded(rows, concurrency or ctx.profile.concurrency, one)
    return rows


async def run_keys(
    ctx: LaunchContext,
    rows: list[BatchRow],
    *,
    concurrency: int | None = None,
    call: StepCaller = run_step,
    start: int = 0,
    on_update: Update | None = None,
) -> list[BatchRow]:
    """Run the recorded launches of `rows` that are not finished, at most `concurrency` in
    flight, from row `start` round to the one before it. Several workers given the same
    rows from different starts share them: the journal's lease gives each launch to one,
    and a launch another worker has is left to it (`elsewhere`)."""
    notify = on_update or _unheard

    async def one(row: BatchRow) -> None:
        if not _stopped(ctx, row, notify):
            await _work(ctx, row, call, notify)

    start = start % len(rows) if rows else 0
    todo = [r for r in rows[start:] + rows[:start] if r.key and not r.finished and r.runnable]
    await _bounded(todo, concurrency or ctx.profile.concurrency, one)
    return rows


async def sweep(
    ctx: LaunchContext,
    rows: list[BatchRow],
    *,
    concurrency: int | None = None,
    call: StepCaller = run_step,
    on_update: Update | None = None,
    poll: float = 2.0,
    patience: float = 3600.0,
) -> list[BatchRow]:
    """Run again what another worker had, until nothing is left to one: finished by it
    meanwhile, or taken over here once its lease lapsed (a worker that died: at once on
    this machine, after `lease_seconds` elsewhere)."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        left = [row for row in rows if row.state is RowStatus.ELSEWHERE]
        if not left:
            break
        await asyncio.sleep(poll)
        await run_keys(ctx, left, concurrency=concurrency, call=call, on_update=on_update)
    return rows


async def _bounded(
    rows: list[BatchRow], limit: int, work: Callable[[BatchRow], Awaitable[None]]
) -> None:
    """`work` on every row, at most `limit` at once."""
    gate = asyncio.Semaphore(limit)

    async def one(row: BatchRow) -> None:
        async with gate:
            await work(row)

    await asyncio.gather(*(one(row) for row in rows))


def _stopped(ctx: LaunchContext, row: BatchRow, notify: Update) -> bool:
    """Whether the run stopped starting launches (its RPC or service gone): the row is then
    `unfinished`, with why."""
    why = ctx.stopped()
    if why is None:
        return False
    row.state, row.error = RowStatus.UNFINISHED, f"not started: {why}"
    notify(row)
    return True


async def _recorded(
    ctx: LaunchContext,
    row: BatchRow,
    check: Validator,
    seen: dict[str, BatchRow],
    notify: Update,
) -> bool:
    """Validate the row's file into the journal; False when it is invalid or a duplicate."""
    try:
        key = await check(ctx, Path(row.file))
    except LaunchOpsError as exc:  # a bad file; or a journal (or service) that failed
        row.state = RowStatus.UNFINISHED if exc.transient else RowStatus.INVALID
        row.error = str(exc)
        notify(row)
        return False
    if key in seen:
        row.key, row.state = key, RowStatus.DUPLICATE
        row.error = f"same launch as {seen[key].file}"
        notify(row)
        return False
    seen[key], row.key = row, key
    return True


async def _work(
    ctx: LaunchContext, row: BatchRow, call: StepCaller, notify: Update, by: Driver = Driver.RUN
) -> None:
    """Run the row's launch (`by` as run_launch takes it) and fill the row from the journal;
    nothing escapes."""
    assert row.key is not None
    row.state = RowStatus.RUNNING
    notify(row)
    held, record = False, None
    try:
        record = await run_launch(ctx, row.key, call, by=by)
    except LeaseError as exc:  # another worker has it
        held, row.error = True, str(exc)
    except Exception as exc:  # one launch's failure, of any kind, stops no other
        row.error = _failure(row.key, exc)
    try:
        await _fill(ctx, row, held=held, record=record)
    except LaunchOpsError as exc:  # the journal did not answer: where it stands is unknown
        row.state, row.error = RowStatus.UNFINISHED, row.error or str(exc)
    notify(row)


async def run_funding(
    ctx: LaunchContext,
    file: Path,
    *,
    concurrency: int | None = None,
    call: StepCaller = run_step,
    on_update: Update | None = None,
) -> list[BatchRow]:
    """Every transfer of a funding list (YAML or CSV), with the batch machinery."""
    from launchops.pipeline.transfers import begin_transfer, read_funding_list

    rows = read_funding_list(file)
    labels = {Path(f"{file}#{index + 1}"): row for index, row in enumerate(rows)}

    async def check(ctx: LaunchContext, label: Path) -> str:
        row = labels[label]
        record = await begin_transfer(
            ctx,
            Kind.FUND,
            agent=str(row["agent"]),
            amount=str(row["amount"]),
            memo=str(row["memo"]),
            network=row.get("network"),
            given_id=row.get("id") or None,
            source=str(label),
        )
        return record.key

    return await run_batch(
        ctx, list(labels), concurrency=concurrency, call=call, check=check, on_update=on_update
    )


async def _fill(
    ctx: LaunchContext, row: BatchRow, *, held: bool = False, record: LaunchRecord | None = None
) -> None:
    """The row as the journal now has it; `held`: another worker has the launch."""
    if record is None and row.key:
        record = await ctx.journal.get(row.key)
    if record is None:
        row.state = LaunchState.FAILED
        return
    row.mint = record.mint
    row.launch_page = record.registered.link if record.registered else None
    if record.kind is not Kind.LAUNCH:
        row.agent, row.amount = str(record.order.agent), str(record.order.amount)
        row.signature = record.signatures[-1] if record.signatures else None
    row.kind = record.kind
    if done(record.state, record.kind):
        row.state, row.error = record.state, None
    elif held:
        row.state = RowStatus.ELSEWHERE
    else:
        row.state, row.error = record.state, row.error or record.last_error


async def retry_registrations(
    ctx: LaunchContext,
    *,
    older_than: timedelta = timedelta(0),
    call: StepCaller = run_step,
    on_update: Update | None = None,
) -> list[BatchRow]:
    """Register every launch whose transactions landed but that is not registered.

    Safe beside a running batch: a launch another worker holds is skipped, and one
    changed within `older_than` is left alone (it is probably being worked right now).
    """
    cutoff = datetime.now(UTC) - older_than
    candidates = [
        r
        for r in await ctx.journal.all(kind=Kind.LAUNCH, states=sorted(REGISTRABLE))
        if r.updated_at <= cutoff
    ]
    rows = [BatchRow(file=record.source or "", key=record.key) for record in candidates]
    for row in rows:
        await _work(ctx, row, call, on_update or _unheard, by=Driver.REGISTRATION_RETRY)
    return rows


def _failure(key: str | None, exc: Exception) -> str:
    """The row's error; what launchops did not expect is logged with its traceback too."""
    if not isinstance(exc, LaunchOpsError | OSError):
        log.error("launch %s failed unexpectedly", key, exc_info=exc)
    return f"{type(exc).__name__}: {exc}"


def counts(rows: list[BatchRow]) -> dict[str, int]:
    """How many rows are in each state, by state (sorted by name)."""
    found: dict[str, int] = {}
    for row in rows:
        found[row.state] = found.get(row.state, 0) + 1
    return dict(sorted(found.items()))


def write_reports(rows: list[BatchRow], folder: Path, name: str) -> tuple[Path, Path]:
    """`<name>.json` and `<name>.csv` in `folder`: key, state, page, mint, error per launch."""
    folder.mkdir(parents=True, exist_ok=True)
    as_json, as_csv = folder / f"{name}.json", folder / f"{name}.csv"
    records = [row.as_json() for row in rows]
    as_json.write_text(json.dumps({"counts": counts(rows), "launches": records}, indent=2) + "\n")
    with as_csv.open("w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(BatchRow(file="").as_json()))
        writer.writeheader()
        writer.writerows(records)
    return as_json, as_csv


def report_name(prefix: str) -> str:
    """A report's file name without its suffix: `prefix` and the UTC time to the second,
    e.g. `batch-20250101T120000Z`."""
    return f"{prefix}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}"


async def name_workers(ctx: LaunchContext, rows: list[BatchRow]) -> list[BatchRow]:
    """Each row's worker: who last took its launch's lease, wherever that ran (none when the
    journal does not answer: the report is written all the same)."""
    try:
        workers = await ctx.journal.workers([row.key for row in rows if row.key])
    except LaunchOpsError:
        return rows
    for row in rows:
        row.worker = workers.get(row.key or "")
    return rows


def batch_result(
    rows: list[BatchRow], folder: Path, prefix: str, stopped: str | None = None
) -> dict[str, Any]:
    """Write the reports and answer what the commands print: counts, launches, report paths,
    `ok` (every row finished or left to another worker) and `stopped`: why the run stopped
    starting launches, if it did."""
    as_json, as_csv = write_reports(rows, folder, report_name(prefix))
    return {
        "ok": all(row.finished_or_elsewhere for row in rows) and stopped is None,
        "stopped": stopped,
        "counts": counts(rows),
        "launches": [row.as_json() for row in rows],
        "reports": {"json": str(as_json), "csv": str(as_csv)},
    }


__all__ = [
    "BatchRow",
    "RowStatus",
    "batch_result",
    "counts",
    "name_workers",
    "record_files",
    "report_name",
    "retry_registrations",
    "run_batch",
    "run_keys",
    "sweep",
    "write_reports",
]
