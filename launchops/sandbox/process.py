"""`launchops sandbox serve` as a child process, as a user runs it: for benchmarks and
tests that want the sandbox out of their own process (its own CPU, a real kill -9)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

import launchops.web as web
from launchops.sandbox.server import Served, bind_pair


def free_port(host: str = "127.0.0.1") -> int:
    """A port whose next one is free too (API and PubSub), released for a child process to
    take. Picked below the kernel's ephemeral range: a port the kernel hands out (or its
    neighbour) can become some connection's own end before the child binds it, and a
    sandbox then fails to start (seen in CI)."""
    for _ in range(500):
        port = _PICK.randrange(_PORTS_FROM, _ephemeral_from() - 1)
        try:
            first, second = bind_pair(host, port)
        except OSError:
            continue
        first.close()
        second.close()
        return port
    raise OSError(f"no two consecutive free ports on {host} below the ephemeral range")


_PORTS_FROM = 10_000  # above the well-known and most services' registered ports
# From the OS, not the `random` module: processes whose module is seeded alike (Hypothesis
# seeds it for every example, in each of the suite's processes) would try the same ports.
_PICK = random.SystemRandom()


def _ephemeral_from() -> int:
    """The first port of the kernel's ephemeral range (Linux's; 32768 where it is not known,
    below every platform's own range)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


@dataclass
class ServedSandbox(Served):
    port: int
    process: subprocess.Popen[Any]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_until_up(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                answer = web.post(
                    self.rpc_url, json={"jsonrpc": "2.0", "id": 1, "method": "getHealth"}
                )
                if answer.status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(f"sandbox serve exited with {self.process.returncode}")
            if time.monotonic() > deadline:
                raise TimeoutError("sandbox serve did not come up")
            time.sleep(0.05)

    def kill(self, signum: int = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signum)
            self.process.wait(timeout=30)


@contextmanager
def serving(
    *args: str, data: Path | None = None, capture: bool = False, port: int | None = None
) -> Iterator[ServedSandbox]:
    """`launchops sandbox serve --port <free> ARGS` until the block ends (then SIGTERM)."""
    port = port or free_port()
    command = [
        sys.executable,
        "-m",
        "launchops.cli",
        "sandbox",
        "serve",
        "--port",
        str(port),
        *args,
    ]
    command += ["--data", str(data)] if data is not None else ["--fresh"]
    output = subprocess.PIPE if capture else subprocess.DEVNULL
    process = subprocess.Popen(
        command, stdout=output, stderr=output, text=True, start_new_session=True
    )
    served = ServedSandbox(port, process)
    try:
        served.wait_until_up()
        yield served
    finally:
        served.kill()
