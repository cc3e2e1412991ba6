"""Many launches at once, and mopping up registrations, over the same steps.

A batch validates every file, then runs the launches with at most `concurrency` in
flight (the API and RPC rate limits of the context are shared by all of them). One
launch failing never stops the others; a launch another worker holds is left to it; a
file with a `schedule:` is left to its own deployment (reported `scheduled`, nothing of
it created or journaled). A batch is resumable as a whole: re-running it reports what
finished and continues the rest. Its rows and reports are `launchops.pipeline.rows`.

When the RPC or the service is gone for the run (`launchops.retries.Outage`), or a signal
asked the process to stop (`launchops.pipeline.stopping`), no launch is started any more:
those in flight end at their next call (after a stop: at the end of their step, or cut
after its grace), the rest are reported `unfinished`, and the result says why (`stopped`).
A journal that stops answering ends the rows it cannot finish as `unfinished` too, with
the report written all the same.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from launchops.config.launchfile import plan_launch
from launchops.config.schedule import Schedule, declares_schedule, file_schedule
from launchops.errors import LaunchOpsError, LeaseError
from launchops.journal.records import LaunchRecord
from launchops.pipeline import stopping
from launchops.pipeline.context import LaunchContext
from launchops.pipeline.rows import (
    BatchRow,
    RowStatus,
    batch_result,
    counts,
    report_name,
    write_reports,
)
from launchops.pipeline.runner import StepCaller, run_launch, run_step, validate
from launchops.states import REGISTRABLE, Driver, Kind, LaunchState, done

Validator = Callable[[LaunchContext, Path], Awaitable[str]]
Update = Callable[["BatchRow"], None]
log = logging.getLogger(__name__)


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
    leave_scheduled: bool = True,
) -> list[BatchRow]:
    """Run every launch file; each row ends registered, or with its state and reason. A
    file with a `schedule:` is left to its deployment (`leave_scheduled`): `scheduled`."""
    rows = [BatchRow(file=str(path)) for path in paths]
    notify = on_update or _unheard
    seen: dict[str, BatchRow] = {}

    async def one(row: BatchRow) -> None:
        # Validated inside its slot: the first launches start at once, not after every file.
        if not stopped_row(ctx, row, notify) and await _recorded(
            ctx, row, check, seen, notify, leave_scheduled
        ):
            await work_row(ctx, row, call, notify)

    for row in rows:
        notify(row)
    await bounded(rows, concurrency or ctx.profile.concurrency, one)
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
    rows with their key, or invalid, or the same launch as an earlier file, or scheduled
    (a file with a `schedule:`, left to its own deployment and not journaled)."""
    rows = [BatchRow(file=str(path)) for path in paths]
    notify = on_update or _unheard
    seen: dict[str, BatchRow] = {}

    async def one(row: BatchRow) -> None:
        await _recorded(ctx, row, check, seen, notify, leave_scheduled=True)

    await bounded(rows, concurrency or ctx.profile.concurrency, one)
    return rows


async def bounded(
    rows: list[BatchRow], limit: int, work: Callable[[BatchRow], Awaitable[None]]
) -> None:
    """`work` on every row, at most `limit` at once."""
    gate = asyncio.Semaphore(limit)

    async def one(row: BatchRow) -> None:
        async with gate:
            await work(row)

    await asyncio.gather(*(one(row) for row in rows))


def stopped_row(ctx: LaunchContext, row: BatchRow, notify: Update) -> bool:
    """Whether the run stopped starting launches (a stop asked by a signal, its RPC or
    service gone): the row is then `unfinished`, with why."""
    why = ctx.stopped()
    if why is None:
        return False
    row.state, row.error = RowStatus.UNFINISHED, f"not started: {why}"
    if stopping.asked() is not None:
        stopping.note_not_started(row.key or row.file)
    notify(row)
    return True


async def _recorded(
    ctx: LaunchContext,
    row: BatchRow,
    check: Validator,
    seen: dict[str, BatchRow],
    notify: Update,
    leave_scheduled: bool,
) -> bool:
    """Validate the row's file into the journal; False when it is invalid, a duplicate,
    or (`leave_scheduled`) a file with a schedule: validated, not journaled, `scheduled`."""
    path = Path(row.file)
    try:
        scheduled = _scheduled(ctx, path) if leave_scheduled else None
        key = scheduled[0] if scheduled else await check(ctx, path)
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
    if scheduled:
        row.state, row.scheduled_for = RowStatus.SCHEDULED, scheduled[1]
        notify(row)
        return False
    return True


def _scheduled(ctx: LaunchContext, path: Path) -> tuple[str, str] | None:
    """(key, when) of a launch file with a `schedule:` still ahead, checked as its
    deployment will (every rule but "not in the past": its times are checked when it
    runs) and left out of the journal; None for a file without one, or whose one-off time
    is past: it is due, and the batch launches it now (no deployment made after its time
    ever would). A LaunchFileError when the file is not valid."""
    if not declares_schedule(path):
        return None
    schedule = file_schedule(path)
    if schedule is not None and not schedule.ahead(datetime.now(UTC)):
        return None
    plan = plan_launch(ctx.profile, ctx.wallet, path, check_times=False, resolver=ctx.resolver)
    assert plan.schedule is not None
    return plan.key, Schedule.parse(plan.schedule).shown


async def work_row(
    ctx: LaunchContext, row: BatchRow, call: StepCaller, notify: Update, by: Driver = Driver.RUN
) -> None:
    """Run the row's launch (`by` as run_launch takes it) and fill the row from the journal;
    nothing escapes."""
    assert row.key is not None
    row.state = RowStatus.RUNNING
    notify(row)
    held, record = False, None
    try:
        before = await ctx.journal.get(row.key)  # finished before: reported from the journal
        row.from_journal = before is not None and done(before.state, before.kind)
        record = await run_launch(ctx, row.key, call, by=by)
    except LeaseError as exc:  # another worker has it
        held, row.error = True, str(exc)
    except Exception as exc:  # one launch's failure, of any kind, stops no other
        row.error = _failure(row.key, exc)
    try:
        await _fill(ctx, row, held=held, record=record)
    except LaunchOpsError as exc:  # the journal did not answer: where it stands is unknown
        row.state, row.error = RowStatus.UNFINISHED, row.error or str(exc)
    stop = stopping.asked()
    if stop is not None and row.error is None and not row.finished_or_elsewhere:
        row.error = f"{stop.reason} before its next step"
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
        ctx,
        list(labels),
        concurrency=concurrency,
        call=call,
        check=check,
        on_update=on_update,
        leave_scheduled=False,
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
    if record.kind is Kind.LAUNCH and any(a.spent for a in record.attempts):
        row.lamports_spent, row.tip_lamports = record.lamports_spent, record.tips_paid
        row.sniped = len(record.sniped_by)
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
    notify = on_update or _unheard
    for row in rows:
        if not stopped_row(ctx, row, notify):
            await work_row(ctx, row, call, notify, by=Driver.REGISTRATION_RETRY)
    return rows


def _failure(key: str | None, exc: Exception) -> str:
    """The row's error; what launchops did not expect is logged with its traceback too."""
    if not isinstance(exc, LaunchOpsError | OSError):
        log.error("launch %s failed unexpectedly", key, exc_info=exc)
    return f"{type(exc).__name__}: {exc}"


async def name_workers(ctx: LaunchContext, rows: list[BatchRow]) -> list[BatchRow]:
    """Each row's worker: who last took its launch's lease, wherever that ran, for the
    launches this batch worked (none for one finished before it began, reported from the
    journal; none for a file left to its own schedule; none when the journal does not
    answer: the report is written all the same)."""
    ran = [row for row in rows if row.key and row.state is not RowStatus.SCHEDULED]
    try:
        keys = [row.key for row in ran if row.key]
        workers = await ctx.journal.workers(keys, since=ctx.opened_at)
    except LaunchOpsError:
        return rows
    for row in ran:
        row.worker = workers.get(row.key or "")
    return rows


__all__ = [
    "BatchRow",
    "RowStatus",
    "batch_result",
    "bounded",
    "counts",
    "name_workers",
    "record_files",
    "report_name",
    "retry_registrations",
    "run_batch",
    "stopped_row",
    "work_row",
    "write_reports",
]
