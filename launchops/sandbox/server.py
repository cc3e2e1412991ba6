"""Running the sandbox: in this process on free ports (tests, the embedded default), or in
the foreground (`launchops sandbox serve`).

One port P serves the `/v1` API, the admin surface and JSON-RPC; P + 1 serves PubSub over
WebSocket, where Solana clients look for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

from launchops.sandbox.app import build_app
from launchops.sandbox.faults import Faults
from launchops.sandbox.service import SandboxService


@dataclass
class SandboxConfig:
    host: str = "127.0.0.1"
    port: int = 8899  # 0: any free pair of ports
    slot_ms: int = 400
    data_dir: Path | None = None
    faults: Faults = field(default_factory=Faults)
    seed_agents: int = 0
    seed: int | None = None


class _Server(uvicorn.Server):
    """uvicorn's server, stopped at once when asked: uvicorn looks at `should_exit` every
    0.1 s and then waits 0.1 s more for its connections to close, ~0.19 s at the end of
    every command run on the embedded sandbox; here a stop wakes the loop, and with no
    connection open there is nothing to wait for."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._tick: asyncio.Future[None] | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # the sandbox handles signals once for both of its servers

    def stop_soon(self) -> None:
        """Ask the server to stop (in its loop's thread): it wakes now, not at its tick."""
        self.should_exit = True
        if self._tick is not None and not self._tick.done():
            self._tick.set_result(None)

    async def main_loop(self) -> None:
        """uvicorn's loop (a tick every 0.1 s), its wait one that `stop_soon` ends early: a
        future and a timer, as `asyncio.sleep` is made."""
        loop = asyncio.get_running_loop()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 1) % 864000
            self._tick = tick = loop.create_future()
            timer = loop.call_later(0.1, _done, tick)
            await tick
            timer.cancel()
            should_exit = await self.on_tick(counter)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.server_state.connections:  # uvicorn's own: it lets them finish
            return await super().shutdown(sockets)
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()


def _done(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _bind(host: str, port: int) -> socket.socket:
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on accepted connections only then.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def bind_pair(host: str, port: int) -> tuple[socket.socket, socket.socket]:
    """Sockets on `port` and `port + 1`; with port 0, the first free pair found."""
    if port:
        first = _bind(host, port)
        try:
            return first, _bind(host, port + 1)
        except OSError:
            first.close()
            raise
    for _ in range(50):
        first = _bind(host, 0)
        try:
            return first, _bind(host, first.getsockname()[1] + 1)
        except OSError:
            first.close()
    raise OSError("no two consecutive free ports found")


class Served:
    """A running sandbox's addresses, from its `url`: the /v1 API under it, JSON-RPC at it."""

    @property
    def url(self) -> str:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def rpc_url(self) -> str:
        return self.url


class Sandbox(Served):
    """The whole service and its chain, on loopback.

    with Sandbox(SandboxConfig(port=0, slot_ms=0)) as sandbox:
        client = AsyncServiceClient(sandbox.base_url)
    """

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config or SandboxConfig()
        self.service: SandboxService | None = None
        self._servers: list[_Server] = []
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sockets = bind_pair(self.config.host, self.config.port)
        self.port = self._sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.config.host}:{self.port + 1}"

    def open(self) -> None:
        """Open its chain (a kept one: SandboxUnavailable when it cannot be) and build the
        app; `start` and `serve_forever` do it when it is not done."""
        if self.service is not None:
            return
        self.service = SandboxService(
            slot_ms=self.config.slot_ms,
            data_dir=self.config.data_dir,
            faults=self.config.faults,
            public_url=self.url,
            seed=self.config.seed,
        )
        if self.config.seed_agents:
            rng = random.Random(self.config.seed)
            self.service.registry.seed(self.config.seed_agents, rng=rng)
        app = build_app(self.service)
        common: dict[str, Any] = {
            "log_level": "warning",
            "access_log": False,
            "ws": "websockets-sansio",
            # No `server: uvicorn`: a node does not send it, and the pages of the faults
            # (`outages`) send the `Server` of nginx or the CDN they stand for.
            "server_header": False,
        }
        self._servers = [
            _Server(uvicorn.Config(app, lifespan="on", **common)),
            _Server(uvicorn.Config(app, lifespan="off", **common)),
        ]

    async def _serve(self) -> None:
        api, pubsub = self._sockets
        await asyncio.gather(
            self._servers[0].serve(sockets=[api]), self._servers[1].serve(sockets=[pubsub])
        )

    def _request_stop(self) -> None:
        for server in self._servers:
            server.stop_soon()

    # ── in this process, in the background ──────────────────────────────────

    def start(self) -> Sandbox:
        self.open()
        ready = threading.Event()

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._loop.call_soon(ready.set)
            self._loop.run_until_complete(self._serve())
            self._loop.close()

        self._thread = threading.Thread(target=run, name="launchops-sandbox", daemon=True)
        self._thread.start()
        ready.wait(10)
        deadline = threading.Event()
        for _ in range(1000):
            if all(s.started for s in self._servers) or not self._thread.is_alive():
                break
            deadline.wait(0.01)
        if not all(s.started for s in self._servers):
            raise RuntimeError("the sandbox did not start")
        return self

    def stop(self) -> None:
        """Stop serving (a second call does nothing)."""
        if self._loop is not None and self._thread is not None:
            if not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._request_stop)
            self._thread.join(timeout=15)
        for sock in self._sockets:
            sock.close()
        if self.service is not None:
            self.service.store.close()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ── in the foreground ───────────────────────────────────────────────────

    def serve_forever(self) -> None:
        self.open()

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, self._request_stop)
            await self._serve()

        try:
            asyncio.run(main())
        finally:
            for sock in self._sockets:
                sock.close()
            if self.service is not None:
                self.service.store.close()
