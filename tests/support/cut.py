"""A TCP relay in front of a real server that a test can cut and mend: cut, every
connection through it is reset and new ones are refused, as when a database server stops
or its network goes; mended, it relays again. Runs its own event loop in a thread."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Relay:
    """`127.0.0.1:port` relayed to `target` (host, port) while not cut; `port` is a free
    one unless given (a port a killed server held, say)."""

    def __init__(self, target: tuple[str, int], port: int = 0) -> None:
        self.target = target
        self.port = port
        self._cut = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="relay", daemon=True)
        self._socket: socket.socket | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        serving = asyncio.start_server(self._serve, sock=self._socket)
        server = self._loop.run_until_complete(serving)
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )
        self._writers -= {writer, up_writer}

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            with contextlib.suppress(Exception):
                writer.transport.abort()

    def cut(self) -> None:
        """Reset every connection and refuse new ones."""

        def abort() -> None:
            self._cut = True
            for writer in list(self._writers):
                writer.transport.abort()

        self._loop.call_soon_threadsafe(abort)

    def mend(self) -> None:
        """Relay again."""
        self._loop.call_soon_threadsafe(setattr, self, "_cut", False)

    def start(self) -> Relay:
        """Bound here, so that a port in use fails in the caller; served in the thread."""
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", self.port))
        self.port = self._socket.getsockname()[1]
        self._thread.start()
        self._ready.wait(10)
        return self

    def stop(self) -> None:
        self.cut()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


@contextmanager
def relay(host: str, port: int, listen_on: int = 0) -> Iterator[Relay]:
    """A relay to `host:port` for the block, on `listen_on` if given."""
    running = Relay((host, port), listen_on).start()
    try:
        yield running
    finally:
        running.stop()
