"""The library's face: every run of launchops, written once. The command line and the
Prefect flows call exactly these; a Python user calls them too (`import launchops`).

Each run has two forms: `*_in(ctx, ...)` works in a launch context already open (the
flows pass their own, with `call` running each step as its Prefect task and `check`
validating as one), and the plain form opens the profile's context itself (starting the
embedded sandbox where the profile says so) and closes it after. The `_sync` forms block;
inside a running event loop (a notebook) they run on a thread of their own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from launchops.errors import JournalError, LaunchOpsError, LeaseError
from launchops.library.results import BatchResult, LaunchResult
from launchops.states import REGISTRABLE, Kind, done

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from launchops.config.profiles import Profile
    from launchops.pipeline.batch import BatchRow
    from launchops.pipeline.context import LaunchContext, Progress
    from launchops.pipeline.runner import StepCaller

T = TypeVar("T")
P = ParamSpec("P")
Check = Callable[[Path, bool], Awaitable[str]]  # validate a file (replace?) -> its key
RowUpdate = Callable[["BatchRow"], None]


class UnknownLaunch(JournalError):
    """No launch under that key in the profile's journal."""


# ── in an open context ──────────────────────────────────────────────────────


async def launch_in(
    ctx: LaunchContext,
    file: str | Path | None = None,
    *,
    key: str | None = None,
    replace: bool = False,
    now: bool = False,
    call: StepCaller | None = None,
    check: Check | None = None,
) -> LaunchResult:
    """Validate `file` into the journal (or take the launch `key` from it) and run it to
    where a run stops: registered, or waiting for a person or the registration retry (a
    launch whose transactions landed but whose register gave up, the service answering
    5xx or nothing: its result, the error in it, not the error raised). A file whose
    `schedule:` is still ahead is refused (`ScheduledLater`: its deployment launches it
    then) unless `now`."""
    from launchops.config.schedule import refuse_early
    from launchops.pipeline.runner import refuse_another_key, run_launch, run_step, validate

    if file is not None:
        path = Path(file)
        if not now:
            refuse_early(path)
        key = (
            await check(path, replace)
            if check
            else (await validate(ctx, path, replace=replace)).key
        )
    before = await ctx.journal.get(key) if key is not None else None
    if key is None or before is None:
        raise UnknownLaunch(f"no launch {key!r} in the journal of profile {ctx.profile.name}")
    refuse_another_key(ctx, before)  # before anything: one line, nothing done
    try:
        record = await run_launch(ctx, key, call or run_step)
    except LaunchOpsError as exc:
        live = await _landed_unregistered(ctx, key, exc)
        if live is None:
            raise
        return live
    result = LaunchResult.of(ctx.profile, record)
    # Finished before this run: the journal's report, and the result says so.
    return dataclasses.replace(result, from_journal=True) if done(before.state) else result


async def _landed_unregistered(
    ctx: LaunchContext, key: str, error: LaunchOpsError
) -> LaunchResult | None:
    """The result of a launch a run stopped on `error` after its transactions landed (the
    token is live; the registration retry registers it), with the error in it; None for
    any other launch, or when another worker holds it (the error says so itself)."""
    if isinstance(error, LeaseError):
        return None
    try:
        record = await ctx.journal.get(key)
    except LaunchOpsError:
        return None
    if record is None or record.kind is not Kind.LAUNCH or record.state not in REGISTRABLE:
        return None
    return dataclasses.replace(LaunchResult.of(ctx.profile, record), error=str(error))


async def batch_outcome(ctx: LaunchContext, rows: list[BatchRow], prefix: str) -> BatchResult:
    """Name each row's worker, write the JSON and CSV reports, and answer the result."""
    from launchops.pipeline.batch import batch_result, name_workers

    await name_workers(ctx, rows)
    folder = ctx.profile.profile_dir / "reports"
    return BatchResult.from_json(batch_result(rows, folder, prefix, ctx.stopped()))


# ── opening the profile's context ───────────────────────────────────────────


def profile_of(
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
) -> Profile:
    """A profile by name (built in, or from `profiles_file`), `base_url` over it; when its
    RPC follows a sandbox service at another address than the built-in one, the RPC that
    sandbox announces (one chain, not two)."""
    from launchops.config.announced import announced_rpc
    from launchops.config.profiles import Profile, load_profile

    if isinstance(profile, Profile):
        return profile if base_url is None else profile.model_copy(update={"base_url": base_url})
    where = Path(profiles_file) if profiles_file is not None else None
    settings = load_profile(profile, profiles_file=where, base_url=base_url)
    settings.make_profile_dir()  # a home that cannot hold it is said here, in one error
    announced = announced_rpc(settings)
    if announced is None:
        return settings
    return load_profile(profile, profiles_file=where, base_url=base_url, rpc_url=announced)


@asynccontextmanager
async def opened(
    profile: str | Profile,
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    progress: Progress | None = None,
) -> AsyncIterator[LaunchContext]:
    """The profile's launch context for the block (the embedded sandbox started where the
    profile says so), closed after: to run several `*_in` calls in one context."""
    from launchops.pipeline.context import open_context

    settings = profile_of(profile, profiles_file, base_url)
    kwargs: dict[str, Any] = {"progress": progress} if progress is not None else {}
    async with open_context(settings, **kwargs) as ctx:
        yield ctx


async def launch(
    file: str | Path,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    replace: bool = False,
    now: bool = False,
    progress: Progress | None = None,
) -> LaunchResult:
    """Run one launch file end to end (resumable: run it again to continue it; a finished
    launch is reported from the journal, never launched twice).

    A file whose `schedule:` is still ahead (a time to come, or a cron expression) is
    refused with `ScheduledLater`, before anything starts: its own deployment launches it
    then; `now=True` launches it now all the same. `progress(key, step, message)` hears
    each step as it goes."""
    from launchops.config.schedule import refuse_early

    if not now:
        refuse_early(Path(file))  # before the sandbox, the context or any network call
    async with opened(profile, profiles_file, base_url, progress) as ctx:
        return await launch_in(ctx, file, replace=replace, now=now)


async def resume(
    key: str,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    progress: Progress | None = None,
) -> LaunchResult:
    """Continue the launch `key` from its journal, at the first unfinished step."""
    async with opened(profile, profiles_file, base_url, progress) as ctx:
        return await launch_in(ctx, key=key)


async def batch(
    paths: Sequence[str | Path],
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    concurrency: int | None = None,
    on_update: RowUpdate | None = None,
    progress: Progress | None = None,
) -> BatchResult:
    """Run many launch files (or folders of them) concurrently; a re-run skips what
    finished and resumes the rest. A file with a `schedule:` is left to its own
    deployment: reported `scheduled` (its time in `scheduled_for`), nothing of it created.
    `on_update(row)` hears each launch as it changes, `progress(key, step, message)` each
    step (and, with no key, what the batch waits for)."""
    from launchops.config.launchfile import launch_files
    from launchops.pipeline.batch import run_batch

    files = [file for path in paths for file in launch_files(Path(path))]
    async with opened(profile, profiles_file, base_url, progress) as ctx:
        rows = await run_batch(ctx, files, concurrency=concurrency, on_update=on_update)
        return await batch_outcome(ctx, rows, "batch")


async def retry_registrations(
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    older_than: timedelta = timedelta(0),
) -> BatchResult:
    """Register every launch whose transactions landed but which is not registered (those
    idle for `older_than` at least): safe beside a running batch, and idempotent."""
    from launchops.pipeline.batch import retry_registrations as retry

    async with opened(profile, profiles_file, base_url) as ctx:
        return await batch_outcome(ctx, await retry(ctx, older_than=older_than), "registrations")


async def fund_agents(
    listing: str | Path,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    concurrency: int | None = None,
) -> BatchResult:
    """Fund many agents' wallets from a YAML or CSV list (agent, amount, memo[, id]);
    each transfer checked before it is signed, each paid once across re-runs."""
    from launchops.pipeline.batch import run_funding

    async with opened(profile, profiles_file, base_url) as ctx:
        rows = await run_funding(ctx, Path(listing), concurrency=concurrency)
        return await batch_outcome(ctx, rows, "funding")


async def transfer(
    kind: str,
    agent: str,
    amount: str,
    *,
    memo: str | None = None,
    transfer_id: str | None = None,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
) -> dict[str, Any]:
    """Fund an agent's wallet (`kind` "fund", anyone may) or withdraw from it to its owner
    ("withdraw", the profile's key must own the asset): checked before it is signed, paid
    once across re-runs (`transfer_id` names it; else its order does). Its summary
    (`fromJournal`: sent before this run, reported, nothing sent again)."""
    from launchops.pipeline.runner import run_launch
    from launchops.pipeline.transfers import begin_transfer, transfer_summary

    async with opened(profile, profiles_file, base_url) as ctx:
        record = await begin_transfer(
            ctx, Kind(kind), agent=agent, amount=amount, memo=memo, given_id=transfer_id
        )
        before = done(record.state, record.kind)  # sent before: reported from the journal
        return transfer_summary(await run_launch(ctx, record.key), from_journal=before)


async def dry_run(
    file: str | Path,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
) -> dict[str, Any]:
    """Validate, create and sign `file`, then simulate each transaction: nothing is sent
    or kept. What each simulation said."""
    from launchops.pipeline.runner import dry_run as simulate

    async with opened(profile, profiles_file, base_url) as ctx:
        return await simulate(ctx, Path(file))


# ── blocking forms ──────────────────────────────────────────────────────────


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end and answer its result; inside a running event loop (a
    notebook, an async framework) on a thread of its own, so it never meets that loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="launchops") as pool:
        return pool.submit(asyncio.run, coroutine).result()


def blocking(work: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """The blocking twin of the coroutine function `work`: the same arguments, its
    result (by `run_sync`, so also inside a running event loop)."""

    @functools.wraps(work)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(work(*args, **kwargs))

    twin.__name__ = twin.__qualname__ = f"{work.__name__}_sync"
    twin.__doc__ = f"`{work.__name__}`, blocking: the same arguments, its result."
    return twin


launch_sync = blocking(launch)
resume_sync = blocking(resume)
batch_sync = blocking(batch)
retry_registrations_sync = blocking(retry_registrations)
fund_agents_sync = blocking(fund_agents)
transfer_sync = blocking(transfer)
dry_run_sync = blocking(dry_run)


__all__ = [
    "UnknownLaunch",
    "batch",
    "batch_outcome",
    "batch_sync",
    "blocking",
    "dry_run",
    "dry_run_sync",
    "fund_agents",
    "fund_agents_sync",
    "launch",
    "launch_in",
    "launch_sync",
    "opened",
    "profile_of",
    "resume",
    "resume_sync",
    "retry_registrations",
    "retry_registrations_sync",
    "run_sync",
    "transfer",
    "transfer_sync",
]
