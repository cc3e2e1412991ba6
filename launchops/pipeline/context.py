"""What the steps run with: the profile, the service client, the RPC, the journal, the
creator's keypair, and this worker's lease on the launches it works.

With the sandbox profile and nothing listening at its URL, `open_context` starts the
sandbox in this process (its chain kept in the profile's folder, so a re-run after a crash
finds it again) and funds the throwaway keypair by airdrop (`launchops.pipeline.embedded`):
a fresh machine runs a launch end to end with no network and no keys.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from solders.keypair import Keypair
from solders.pubkey import Pubkey

from launchops.api.client import AsyncServiceClient
from launchops.chain.keys import load_keypair
from launchops.chain.rpc import ChainRpc
from launchops.chain.senders import Senders
from launchops.chain.watch import SignatureFeed, StatusWatcher
from launchops.config.clusters import guard_network
from launchops.config.profiles import Profile
from launchops.config.secrets import LaunchSecrets
from launchops.errors import (
    JournalError,
    LaunchOpsError,
    LeaseHeld,
    LeaseLost,
)
from launchops.journal.records import LaunchRecord, Lease
from launchops.journal.store import Journal
from launchops.pipeline import stopping
from launchops.pipeline.embedded import Progress, fund_from_faucet, quiet, start_embedded_sandbox

LEASE_SECONDS = 60.0


@dataclass
class LaunchContext:
    """Everything the steps run with (see the module's text), made by `open_context`, and
    this worker's leases, held as `owner`: `acquire` takes a launch's lease and keeps it
    renewed until `release`."""

    profile: Profile
    client: AsyncServiceClient
    rpc: ChainRpc
    journal: Journal
    keypair: Keypair
    watcher: StatusWatcher
    progress: Progress = quiet
    owner: str = field(
        default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    )
    lease_seconds: float = LEASE_SECONDS
    worker: str = ""  # who works launches here, as the journal's events name it
    _renewed: dict[str, float] = field(default_factory=dict)  # launches worked: last renewal
    _keepers: dict[str, asyncio.Task[None]] = field(default_factory=dict)  # their renewals
    just_read: dict[str, LaunchRecord] = field(default_factory=dict)
    # Launches this command started over (a failed one asked again, a replaced config):
    # the attempt they were at, so that this run makes at most the profile's attempts more.
    attempts_from: dict[str, int] = field(default_factory=dict)
    opened_at: datetime = field(default_factory=lambda: datetime.now(UTC))  # this command's
    resolver: Callable[[str], str] | None = None  # reads prefect-secret: keys
    secrets: dict[str, LaunchSecrets] = field(default_factory=dict, repr=False)  # by launch
    senders: Senders | None = None  # the profile's landing: more senders, a block engine

    @property
    def wallet(self) -> Pubkey:
        return self.keypair.pubkey()

    def stopped(self) -> str | None:
        """Why this run starts nothing more, if it does not: a stop asked of the process
        (SIGINT, SIGTERM: `launchops.pipeline.stopping`), or its RPC or its service gone
        (the error every later call would raise at once)."""
        stop = stopping.asked()
        if stop is not None:
            return stop.reason
        for outage in (self.rpc.outage, self.client.outage):
            if outage.reason is not None:
                try:
                    outage.check()
                except LaunchOpsError as exc:
                    return str(exc)
        return None

    async def acquire(self, key: str) -> bool:
        """Take the launch's lease (or renew ours) and keep it renewed in the background
        until `release`; False when another worker holds it."""
        lease = await self.journal.acquire(key, self.owner, self.lease_seconds, self.worker)
        if lease is None:
            # A worker on this machine that died (kill -9) need not be waited out.
            record = await self.journal.get(key)
            holder = record.lease_owner if record else None
            if holder and _dead_here(holder):
                lease = await self.journal.take_over(
                    key, holder, self.owner, self.lease_seconds, self.worker
                )
        if lease is None:
            self._lose(key)
            return False
        self.journal.held[key] = lease
        self._renewed[key] = time.monotonic()
        if key not in self._keepers or self._keepers[key].done():
            self._keepers[key] = asyncio.create_task(self._keep(key), name=f"lease {key}")
        return True

    async def check_lease(self, key: str) -> None:
        """Before a side effect: LeaseLost if another worker took the launch over; renewed
        here and now if the background renewal is late (a stalled process)."""
        lease = self.journal.held.get(key)
        if lease is None or lease.owner != self.owner:
            raise LeaseLost(key)
        if time.monotonic() - self._renewed.get(key, 0) > self.lease_seconds / 2:
            await self._renew_now(lease)

    async def renew(self, key: str) -> None:
        """Between waits and steps: the same as `check_lease` (the lease itself is renewed
        in the background while a step runs)."""
        await self.check_lease(key)

    @asynccontextmanager
    async def holding(self, key: str) -> AsyncIterator[None]:
        """The launch's lease held around a block: the one this worker works it under (a
        runner's, checked first), else taken for the block alone and given back after."""
        if key in self._renewed:
            await self.check_lease(key)
            yield
            return
        if not await self.acquire(key):
            raise LeaseHeld(f"launch {key} is being worked by another worker")
        try:
            yield
        finally:
            await self.release(key)

    async def release(self, key: str) -> None:
        self._renewed.pop(key, None)
        keeper = self._keepers.pop(key, None)
        if keeper is not None:
            keeper.cancel()
        lease = self.journal.held.pop(key, None)
        if lease is not None and lease.owner == self.owner:
            await self.journal.release(lease)

    async def stop_keeping(self) -> None:
        """Stop every background renewal (the context is closing)."""
        keepers = list(self._keepers.values())
        self._keepers.clear()
        for keeper in keepers:
            keeper.cancel()
        await asyncio.gather(*keepers, return_exceptions=True)

    async def _keep(self, key: str) -> None:
        """Renew the lease every third of it while this worker holds it, so a step waiting
        on an answer slower than the lease keeps it; stop once it is lost."""
        while True:
            await asyncio.sleep(max(self.lease_seconds / 3, 0.05))
            lease = self.journal.held.get(key)
            if lease is None or lease.owner != self.owner:
                return
            try:
                await self._renew_now(lease)
            except LeaseLost:
                return
            except JournalError:  # its database did not answer, say
                continue  # again at the next tick; a fenced write decides meanwhile

    async def _renew_now(self, lease: Lease) -> None:
        started = time.monotonic()
        if not await self.journal.renew(lease, self.lease_seconds):
            self._lose(lease.key)
            raise LeaseLost(lease.key)
        if self.journal.held.get(lease.key) == lease:
            self._renewed[lease.key] = started

    def _lose(self, key: str) -> None:
        """Another worker has the launch: nothing more is written under our lease."""
        lease = self.journal.held.get(key)
        if lease is not None and lease.owner == self.owner:
            del self.journal.held[key]


def _dead_here(owner: str) -> bool:
    """Whether a lease owner (`host:pid:nonce`) is a process of this machine that is gone."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


@asynccontextmanager
async def open_context(
    profile: Profile,
    *,
    progress: Progress = quiet,
    resolver: Callable[[str], str] | None = None,
    lease_seconds: float | None = None,
    limiter: Callable[[str, float], Any] | None = None,
) -> AsyncIterator[LaunchContext]:
    """Everything the steps run with, for as long as the block runs. `limiter(name, rate)`
    makes the rate limit of the API (`api`) and of the RPC (`rpc`) calls, shared by every
    launch in flight (the Prefect layer passes one shared by every worker)."""
    keypair = load_keypair(profile.keypair, state_dir=profile.profile_dir, resolver=resolver)
    limit = limiter or local_limiter
    async with AsyncExitStack() as stack:  # whatever started is stopped, however it ends
        stack.enter_context(stopping.heeding())  # a signal from now on: a stop the runs heed
        embedded = start_embedded_sandbox(profile, progress)
        if embedded is not None:
            stack.push_async_callback(asyncio.to_thread, embedded.stop)
        journal = await Journal.open(profile.journal)
        stack.push_async_callback(journal.close)
        client, rpc = _remotes(profile, limit, progress, stack)
        await guard_network(rpc, profile)  # before anything is created or sent
        if profile.keypair == "sandbox":  # the throwaway key: the sandbox's faucet pays
            await fund_from_faucet(rpc, keypair.pubkey(), progress)
        watcher = _status_watcher(profile, rpc)
        stack.push_async_callback(watcher.close)
        ctx = LaunchContext(
            profile,
            client,
            rpc,
            journal,
            keypair,
            watcher,
            progress,
            lease_seconds=lease_seconds or profile.lease_seconds,
            worker=profile.worker_name,
            resolver=resolver,
        )
        stack.push_async_callback(ctx.stop_keeping)
        ctx.senders = senders_of(profile)
        if ctx.senders is not None:
            stack.push_async_callback(ctx.senders.close)
        yield ctx


def _remotes(
    profile: Profile,
    limit: Callable[[str, float], Any],
    progress: Progress,
    stack: AsyncExitStack,
) -> tuple[AsyncServiceClient, ChainRpc]:
    """The service's client and the RPC's, each with its rate limit and deadline, closed
    with `stack`."""
    client = AsyncServiceClient(
        profile.base_url,
        network=profile.network,
        timeout=profile.timeout_seconds,
        limiter=limit("api", profile.api_rate),
        max_connections=max(32, profile.concurrency * 2),
        deadline=profile.service_call_seconds,
    )
    stack.push_async_callback(client.aclose)
    rpc = ChainRpc(
        profile.rpc_url,
        timeout=profile.timeout_seconds,
        limiter=limit("rpc", profile.rpc_rate),
        deadline=profile.rpc_call_seconds,
        notify=lambda message: progress("", "rpc", message),
    )
    stack.push_async_callback(rpc.close)
    return client, rpc


def _status_watcher(profile: Profile, rpc: ChainRpc) -> StatusWatcher:
    """Signature statuses by the profile's PubSub feed where it has one, polled otherwise."""
    feed = (
        SignatureFeed(profile.pubsub_url, open_timeout=min(2.0, profile.timeout_seconds))
        if profile.pubsub_url
        else None
    )
    return StatusWatcher(
        rpc,
        profile.poll_seconds,
        feed=feed,
        fallback=profile.rebroadcast_seconds,
        give_up=profile.rpc_call_seconds,
    )


def senders_of(profile: Profile) -> Senders | None:
    """The landing section's other senders and block engine, when it names any."""
    landing = profile.landing
    engine = profile.block_engine_url if landing.mode == "bundle" else None
    if not landing.senders and engine is None:
        return None
    return Senders(landing.senders, engine, timeout=min(10.0, profile.timeout_seconds))


def local_limiter(name: str, rate: float) -> Any:
    """`rate` calls a second for this process (aiolimiter's leaky bucket)."""
    from aiolimiter import AsyncLimiter

    return AsyncLimiter(rate, 1)
