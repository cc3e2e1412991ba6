"""Where signatures stand: pushed by the node when it can, polled in batches otherwise.

`SignatureFeed` subscribes each signature over one PubSub WebSocket
(`signatureSubscribe`, as web3.js confirms) before it is sent, so a landing is known the
moment the node says so, for one call a signature. `StatusWatcher` is one poller for
every signature in flight in this process: each cycle asks `getSignatureStatuses` for all
watched signatures at once (256 a call) and, when a late one has not landed,
`getBlockHeight` once. With a feed, a signature is polled only when nothing was pushed
for `fallback` seconds (a lost notification, a dropped socket); without one, every cycle.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from solders.signature import Signature

from launchops.chain.landing import Landing
from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcGone
from launchops.urls import scrubbed, shown

log = logging.getLogger(__name__)
RECONNECT_SECONDS = 5.0
GIVE_UP_AFTER = 3  # failed connections in a row, then the run polls only


def pubsub_url(rpc_url: str) -> str:
    """The PubSub URL web3.js derives from an RPC URL: ws(s)://, and port + 1 if one is given."""
    parts = urlsplit(rpc_url)
    scheme = {"https": "wss", "http": "ws"}.get(parts.scheme, parts.scheme)
    netloc = parts.netloc
    if parts.port is not None:
        host = netloc.rsplit(":", 1)[0]
        netloc = f"{host}:{parts.port + 1}"
    return urlunsplit((scheme, netloc, parts.path, parts.query, ""))


class SignatureFeed:
    """signatureSubscribe at `confirmed` over one WebSocket, shared by every launch.

    Best effort by design: when the socket cannot be opened or drops, `expect` returns
    None and callers poll; it tries to reconnect at most every few seconds, one attempt
    for every launch waiting (not one each), and gives the feed up for the rest of the run
    after GIVE_UP_AFTER failed connections in a row (a port that accepts and never
    completes the handshake would otherwise cost each launch its own timeout).
    """

    def __init__(self, url: str, open_timeout: float = 2.0) -> None:
        self.url = url
        self.open_timeout = open_timeout  # the handshake's bound
        self._client: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._by_subscription: dict[int, asyncio.Future[Landing]] = {}
        self._by_signature: dict[Signature, asyncio.Future[Landing]] = {}
        self._failed_at = -RECONNECT_SECONDS
        self._failures = 0  # failed connections in a row
        self._lock = asyncio.Lock()
        self.subscribed = 0

    async def expect(self, signature: Signature) -> asyncio.Future[Landing] | None:
        """A future that the node's notification for `signature` resolves; subscribe first,
        then send. None when no feed is available (poll instead)."""
        known = self.pending(signature)
        if known is not None:
            return known
        client = await self._connected()
        if client is None:
            return None
        from solana.rpc.commitment import Confirmed

        try:
            subscription = await client.signature_subscribe(
                signature=signature, commitment=Confirmed
            )
        except Exception as exc:  # any failure of the feed means: poll
            self._broken(exc)
            return None
        future: asyncio.Future[Landing] = asyncio.get_running_loop().create_future()
        self._by_subscription[subscription.subscription_id] = future
        self._by_signature[signature] = future
        self.subscribed += 1
        return future

    def pending(self, signature: Signature) -> asyncio.Future[Landing] | None:
        future = self._by_signature.get(signature)
        return future if future is not None and not future.done() else None

    def forget(self, signature: Signature) -> None:
        future = self._by_signature.pop(signature, None)
        if future is not None and not future.done():
            future.cancel()
        self._by_subscription = {k: f for k, f in self._by_subscription.items() if not f.done()}

    def _resting(self) -> bool:
        """No connection is tried now: given up, or failed a moment ago."""
        if self._failures >= GIVE_UP_AFTER:
            return True
        return time.monotonic() - self._failed_at < RECONNECT_SECONDS

    async def _connected(self) -> Any:
        if self._client is not None:
            return self._client
        if self._resting():
            return None
        async with self._lock:
            # Whoever held the lock tried for everyone waiting on it: its failure is theirs.
            if self._client is None and not self._resting():
                from solana.rpc.websocket_api import SolanaWsClient

                client = SolanaWsClient(
                    self.url, request_timeout=5.0, open_timeout=self.open_timeout
                )
                try:
                    self._client = await client.connect()
                except Exception as exc:
                    self._failures += 1
                    self._broken(exc)
                    return None
                self._failures = 0
                self._reader = asyncio.create_task(self._read(self._client))
        return self._client

    async def _read(self, client: Any) -> None:
        try:
            async for note in client:
                future = self._by_subscription.pop(note.subscription, None)
                if future is None or future.done():
                    continue
                err = note.result.value.err
                future.set_result(
                    Landing(
                        note.result.context.slot, "confirmed", None if err is None else str(err)
                    )
                )
        except Exception as exc:
            self._broken(exc)
        else:
            self._broken(ConnectionError("the PubSub socket closed"))

    def _broken(self, exc: BaseException) -> None:
        log.debug(
            "PubSub feed at %s unavailable, polling instead: %s",
            shown(self.url),
            scrubbed(str(exc), self.url),
        )
        self._failed_at = time.monotonic()
        client, self._client = self._client, None
        if client is not None:
            task = asyncio.ensure_future(client.close())
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
        # Subscriptions died with the socket: their waiters fall back to polling now.
        for future in self._by_signature.values():
            if not future.done():
                future.cancel()
        self._by_subscription.clear()
        self._by_signature.clear()

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.close()
            self._client = None


@dataclass(frozen=True)
class Seen:
    """What `StatusWatcher.next` learned of a signature: its landing (None: not landed
    yet), and the block height when asked for and it had not landed."""

    landing: Landing | None
    block_height: int | None  # known when the signature had not landed
    context_slot: int | None = None  # the slot the node answered at, when it said


def _fail(batch: dict[Signature, list[asyncio.Future[Seen]]], exc: BaseException) -> None:
    for futures in batch.values():
        for future in futures:
            if not future.done():
                future.set_exception(exc)


class StatusWatcher:
    """One poller for every signature in flight in this process (see the module's text).
    A poll that fails transiently is asked again at the next cycle, for up to `give_up`
    seconds of failures in a row; then its waiters learn of the error, as they do at once
    of one that is not transient (the RPC gone for this run: `RpcGone`)."""

    def __init__(
        self,
        rpc: ChainRpc,
        interval: float,
        feed: SignatureFeed | None = None,
        fallback: float = 2.0,
        give_up: float = 120.0,
    ) -> None:
        self.rpc = rpc
        self.give_up = give_up
        self.interval = interval
        self.feed = feed
        self.fallback = fallback
        self._waiting: dict[Signature, list[asyncio.Future[Seen]]] = {}
        self._height_wanted = False
        self._task: asyncio.Task[None] | None = None
        self.cycles = 0

    async def expect(self, signature: Signature) -> None:
        """Call before the first send: with a feed, the node will push its landing."""
        if self.feed is not None:
            await self.feed.expect(signature)

    def forget(self, signature: Signature) -> None:
        if self.feed is not None:
            self.feed.forget(signature)

    async def next(self, signature: Signature, *, height: bool = False) -> Seen:
        """Where `signature` stands: as soon as the node pushes it (with a feed), else at
        the next poll cycle; `height`: and the block height, if it has not landed (one
        getBlockHeight a cycle, only when someone asks)."""
        pushed = self.feed.pending(signature) if self.feed is not None else None
        if pushed is not None:
            try:
                # Shielded: a timeout here must not cancel the subscription's future.
                async with asyncio.timeout(self.fallback):
                    return Seen(await asyncio.shield(pushed), None)
            except TimeoutError:
                pass  # nothing pushed for a while: ask the node
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not pushed.cancelled() or (task is not None and task.cancelling()):
                    raise  # we are being cancelled, not just the subscription
        return await self._polled(signature, height)

    async def _polled(self, signature: Signature, height: bool) -> Seen:
        self._height_wanted = self._height_wanted or height
        future: asyncio.Future[Seen] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(signature, []).append(future)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        return await future

    async def next_all(self, signatures: list[Signature]) -> list[Seen]:
        return list(await asyncio.gather(*(self.next(s) for s in signatures)))

    async def _run(self) -> None:
        failing_since: float | None = None
        while self._waiting:
            await asyncio.sleep(self.interval)
            batch, self._waiting = self._waiting, {}
            wanted, self._height_wanted = self._height_wanted, False
            signatures = list(batch)
            try:
                view = await self.rpc.statuses_at(signatures)
                landings = view.landings
                height = await self.rpc.block_height() if wanted and None in landings else None
            except Exception as exc:
                # A failed poll tells nothing of any launch: its waiters wait for the next
                # cycle, unless the RPC has failed for longer than `give_up` seconds.
                failing_since = failing_since or time.monotonic()
                transient = getattr(exc, "transient", False) and not isinstance(exc, RpcGone)
                if transient and time.monotonic() - failing_since < self.give_up:
                    log.info("status poll failed, asking again: %s", exc)
                    self._requeue(batch, wanted)
                    continue
                _fail(batch, exc)
                continue
            failing_since = None
            self.cycles += 1
            for signature, landing in zip(signatures, landings, strict=True):
                seen = Seen(landing, height if landing is None else None, view.context_slot)
                for future in batch[signature]:
                    if not future.done():
                        future.set_result(seen)

    def _requeue(self, batch: dict[Signature, list[asyncio.Future[Seen]]], wanted: bool) -> None:
        for signature, futures in batch.items():
            self._waiting.setdefault(signature, []).extend(f for f in futures if not f.done())
        self._height_wanted = self._height_wanted or wanted

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self.feed is not None:
            await self.feed.close()
