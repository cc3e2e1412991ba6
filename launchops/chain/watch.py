"""One poller for every signature in flight in this process.

Each cycle asks `getSignatureStatuses` for all watched signatures at once (256 a call)
and, when a late one has not landed, `getBlockHeight` once; every waiter gets that
cycle's answer. A batch of N launches costs the RPC the same as one, and polling can be quick.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from solders.signature import Signature

from launchops.chain.rpc import ChainRpc, Landing


@dataclass(frozen=True)
class Seen:
    landing: Landing | None
    block_height: int | None  # known when the signature had not landed


class StatusWatcher:
    def __init__(self, rpc: ChainRpc, interval: float) -> None:
        self.rpc = rpc
        self.interval = interval
        self._waiting: dict[Signature, list[asyncio.Future[Seen]]] = {}
        self._height_wanted = False
        self._task: asyncio.Task[None] | None = None
        self.cycles = 0

    async def next(self, signature: Signature, *, height: bool = False) -> Seen:
        """Where `signature` stands at the next cycle; `height`: and the block height, if
        it has not landed (one getBlockHeight a cycle, only when someone asks)."""
        self._height_wanted = self._height_wanted or height
        future: asyncio.Future[Seen] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(signature, []).append(future)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        return await future

    async def next_all(self, signatures: list[Signature]) -> list[Seen]:
        return list(await asyncio.gather(*(self.next(s) for s in signatures)))

    async def _run(self) -> None:
        while self._waiting:
            await asyncio.sleep(self.interval)
            batch, self._waiting = self._waiting, {}
            wanted, self._height_wanted = self._height_wanted, False
            signatures = list(batch)
            try:
                landings = await self.rpc.statuses(signatures)
                height = await self.rpc.block_height() if wanted and None in landings else None
            except BaseException as exc:  # every waiter of this cycle learns of it
                for futures in batch.values():
                    for future in futures:
                        if not future.done():
                            future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            self.cycles += 1
            for signature, landing in zip(signatures, landings, strict=True):
                seen = Seen(landing, height if landing is None else None)
                for future in batch[signature]:
                    if not future.done():
                        future.set_result(seen)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
