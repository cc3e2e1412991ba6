"""The library's face for what comes after a launch: agents minted once, creator
rewards claimed, a launch's status. The command line and the flows call these.

Like `launchops.library.launches`: `*_in(ctx, ...)` works in an open context (the flows pass
`call`, running each step as its Prefect task), the plain form opens the profile's
context itself, the `_sync` form blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from launchops.library.after_results import (
    AgentResult,
    ClaimResult,
    LaunchStatusResult,
    StatusChange,
    WatchResult,
)
from launchops.library.launches import UnknownLaunch, blocking, opened, profile_of

if TYPE_CHECKING:
    from solders.pubkey import Pubkey

    from launchops.config.profiles import Profile
    from launchops.journal.store import Journal
    from launchops.pipeline.context import LaunchContext, Progress
    from launchops.pipeline.runner import StepCaller


async def mint_agent_in(
    ctx: LaunchContext, file: str | Path, *, call: StepCaller | None = None
) -> AgentResult:
    """Mint the agent of `file` once: journaled by the file's id, so a second run (or a
    run after a crash at any point) reports the agent minted, never mints another (one
    minted before this run: `from_journal`)."""
    from launchops.pipeline.agents import begin_agent
    from launchops.pipeline.runner import run_launch, run_step
    from launchops.states import done

    record = await begin_agent(ctx, Path(file))
    before = done(record.state, record.kind)  # minted before: reported from the journal
    minted = await run_launch(ctx, record.key, call or run_step)
    return AgentResult.of(minted, from_journal=before)


async def claim_rewards_in(
    ctx: LaunchContext,
    wallet: str | Pubkey | None = None,
    payer: str | Pubkey | None = None,
    *,
    call: StepCaller | None = None,
    source: str = "command line",
) -> ClaimResult:
    """Claim the creator rewards of `wallet` (the profile's by default), `payer` (the
    profile's key when the wallet is another) signing and paying: each transaction once;
    a wallet with nothing to claim is an ordinary, finished result."""
    from launchops.pipeline.claims import begin_claim
    from launchops.pipeline.runner import run_launch, run_step

    record = await begin_claim(ctx, wallet, payer, source)
    return ClaimResult.of(await run_launch(ctx, record.key, call or run_step))


async def launch_status_in(ctx: LaunchContext, genesis_or_key: str) -> LaunchStatusResult:
    """A launch's status by its genesis address, or by its key in the journal."""
    from solders.pubkey import Pubkey as _Pubkey

    key: str | None = None
    genesis = genesis_or_key
    try:
        _Pubkey.from_string(genesis_or_key)
    except ValueError:
        key, genesis = await _launch_of(ctx.journal, genesis_or_key, ctx.profile.name)
    detail = await ctx.client.get_launch(genesis, network=str(ctx.profile.network))
    return LaunchStatusResult.of(detail, key or await _key_of(ctx, genesis))


async def _launch_of(journal: Journal, key: str, profile: str) -> tuple[str, str]:
    """The key and genesis account of a launch of the journal (UnknownLaunch if none)."""
    record = await journal.get(key)
    if record is None or record.genesis is None:
        raise UnknownLaunch(
            f"{key!r} is neither a genesis address nor a launch with a genesis account in "
            f"the journal of profile {profile}"
        )
    return record.key, str(record.genesis)


async def _refuse_unknown(settings: Profile, genesis_or_key: str) -> None:
    """A key the journal does not know is refused from the journal alone, before the
    embedded sandbox, the service or the RPC is asked anything."""
    from solders.pubkey import Pubkey as _Pubkey

    from launchops.journal.store import Journal

    try:
        _Pubkey.from_string(genesis_or_key)
        return
    except ValueError:
        pass
    journal = await Journal.open(settings.journal)
    try:
        await _launch_of(journal, genesis_or_key, settings.name)
    finally:
        await journal.close()


async def list_launches_in(
    ctx: LaunchContext, status: str | None = None
) -> list[LaunchStatusResult]:
    """Every launch on the profile's network, filtered by status."""
    details = await ctx.client.list_launches(
        network=str(ctx.profile.network),
        status=status,  # type: ignore[arg-type]
    )
    keys = {r.genesis: r.key for r in await ctx.journal.all() if r.genesis}
    return [LaunchStatusResult.of(d, keys.get(str(d.launch.genesis_address))) for d in details]


async def watch_launches_in(
    ctx: LaunchContext,
    keys: Sequence[str] | None = None,
    emit: Callable[[StatusChange], None] | None = None,
) -> WatchResult:
    """One look at the registered launches of the journal (or those of `keys`) not yet
    graduated or ended: each one's status asked of the service and kept in the journal;
    a change to graduated or ended handed to `emit` once (kept as announced after)."""
    from launchops.api.errors import NotFoundError
    from launchops.journal.watched import SETTLED, announced, saw, watched
    from launchops.states import Kind, LaunchState

    known = await watched(ctx.journal)
    records = [
        r
        for r in await ctx.journal.all(kind=Kind.LAUNCH, states=[LaunchState.REGISTERED])
        if r.genesis and (keys is None or r.key in keys)
    ]
    changes: list[StatusChange] = []
    statuses: dict[str, str] = {}
    for record in records:
        assert record.genesis is not None
        last = known.get(record.key)
        if last is not None and last.settled:
            statuses[record.key] = last.status
            continue
        try:
            detail = await ctx.client.get_launch(record.genesis, network=record.network)
        except NotFoundError:
            continue  # not indexed by the service (yet): asked again at the next look
        status = statuses[record.key] = str(detail.launch.status)
        if last is None or last.status != status:
            await saw(ctx.journal, record.key, record.genesis, record.network, status)
        if status in SETTLED and (last is None or last.announced != status):
            change = StatusChange(
                record.key, record.genesis, record.network, status, last.status if last else None
            )
            if emit is not None:
                emit(change)
            await announced(ctx.journal, record.key, status)
            changes.append(change)
    watching = tuple(k for k, s in statuses.items() if s not in SETTLED)
    return WatchResult(tuple(changes), statuses, watching)


async def keys_of_files(ctx: LaunchContext, paths: Sequence[str | Path]) -> list[str]:
    """The journal's launches recorded from the launch files at or below `paths` (a
    batch's): what the watch follows for a batch."""
    from launchops.config.launchfile import launch_files
    from launchops.states import Kind

    files = {f.resolve() for path in paths for f in launch_files(Path(path))}
    return [
        r.key
        for r in await ctx.journal.all(kind=Kind.LAUNCH)
        if r.source and Path(r.source).resolve() in files
    ]


async def _key_of(ctx: LaunchContext, genesis: str) -> str | None:
    return next((r.key for r in await ctx.journal.all() if r.genesis == genesis), None)


async def claim_all_in(
    ctx: LaunchContext,
    wallets: str | Path | None = None,
    wallet: str | None = None,
    payer: str | None = None,
    *,
    call: StepCaller | None = None,
    source: str | None = None,
) -> list[ClaimResult]:
    """The wallets of the YAML list `wallets` (else the one `wallet`, else the profile's),
    each claimed by `claim_rewards_in`, one after the other."""
    from launchops.config.wallets import read_wallets

    listed = read_wallets(Path(wallets)) if wallets else []
    rows = [(w.wallet, w.payer) for w in listed] if wallets else [(wallet, payer)]
    where = source or (str(wallets) if wallets else "command line")
    return [await claim_rewards_in(ctx, w, p, call=call, source=where) for w, p in rows]


# ── opening the profile's context ───────────────────────────────────────────


async def mint_agent(
    file: str | Path,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    progress: Progress | None = None,
) -> AgentResult:
    """`mint_agent_in` in the profile's context."""
    async with opened(profile, profiles_file, base_url, progress) as ctx:
        return await mint_agent_in(ctx, file)


async def claim_rewards(
    wallet: str | None = None,
    payer: str | None = None,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    progress: Progress | None = None,
) -> ClaimResult:
    """`claim_rewards_in` in the profile's context."""
    async with opened(profile, profiles_file, base_url, progress) as ctx:
        return await claim_rewards_in(ctx, wallet, payer)


async def launch_status(
    genesis_or_key: str,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
) -> LaunchStatusResult:
    """`launch_status_in` in the profile's context (an unknown key refused before it opens)."""
    settings = profile_of(profile, profiles_file, base_url)
    await _refuse_unknown(settings, genesis_or_key)
    async with opened(settings) as ctx:
        return await launch_status_in(ctx, genesis_or_key)


async def list_launches(
    status: str | None = None,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
) -> list[LaunchStatusResult]:
    """`list_launches_in` in the profile's context."""
    async with opened(profile, profiles_file, base_url) as ctx:
        return await list_launches_in(ctx, status)


async def watch_launches(
    keys: Sequence[str] | None = None,
    *,
    profile: str | Profile = "sandbox",
    profiles_file: str | Path | None = None,
    base_url: str | None = None,
    emit: Callable[[StatusChange], None] | None = None,
) -> WatchResult:
    """`watch_launches_in` in the profile's context: one look."""
    async with opened(profile, profiles_file, base_url) as ctx:
        return await watch_launches_in(ctx, keys, emit)


mint_agent_sync = blocking(mint_agent)
claim_rewards_sync = blocking(claim_rewards)
launch_status_sync = blocking(launch_status)
list_launches_sync = blocking(list_launches)
watch_launches_sync = blocking(watch_launches)


__all__ = [
    "claim_all_in",
    "claim_rewards",
    "claim_rewards_in",
    "claim_rewards_sync",
    "keys_of_files",
    "launch_status",
    "launch_status_in",
    "launch_status_sync",
    "list_launches",
    "list_launches_in",
    "list_launches_sync",
    "mint_agent",
    "mint_agent_in",
    "mint_agent_sync",
    "watch_launches",
    "watch_launches_in",
    "watch_launches_sync",
]
