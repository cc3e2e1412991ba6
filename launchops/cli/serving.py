"""What both local Prefect servers (a command's own, and the kept one) start on: a
listening loopback socket handed to the server, and the wait for its health check."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from typing import Any

import httpx

from launchops.web import verify_for


def listening_socket() -> socket.socket:
    """A socket on a free loopback port, already listening, for the server to serve on:
    no other process can take its port between choosing it and the server binding it
    (a port merely chosen could be taken, and another server there would answer the
    health check in this one's place)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def healthy(process: subprocess.Popen[bytes], url: str, deadline: float) -> bool:
    """Whether the server answers its health check before `deadline` (False: it exited)."""
    with httpx.Client(timeout=2.0, verify=verify_for(url)) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            with contextlib.suppress(httpx.TransportError):
                if client.get(f"{url}/health").status_code == 200:
                    return True
            time.sleep(0.1)
    return False


def prefect_app_server(fd: int) -> tuple[Any, socket.socket]:
    """Prefect's server app under uvicorn, for the listening socket `fd` (a child's, as
    its parent passed it): the server, not yet run, and the socket to run it on."""
    import uvicorn

    sock = socket.socket(fileno=fd)
    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        "prefect.server.api.server:create_app",
        factory=True,
        host=host,
        port=port,
        log_level="error",
        lifespan="on",
    )
    return uvicorn.Server(config), sock


__all__ = ["healthy", "listening_socket", "prefect_app_server"]
