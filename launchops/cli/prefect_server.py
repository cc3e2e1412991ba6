"""A Prefect server for one command, that stops in order and dies with the command.

Prefect starts its own temporary server when no PREFECT_API_URL is set, as a plain
subprocess: a `kill -9` of the command leaves it running (an orphan uvicorn), and its
stop (SIGTERM, then SIGKILL after 5 s) cuts its services mid-flush, which print their
tracebacks on the command's terminal. launchops starts it itself instead, the same app
(`prefect.server.api.server:create_app`, ephemeral: the services Prefect marks for it,
or, for `deploy --serve`, all of them), as a child that watches its parent:

- on Linux the kernel sends it SIGTERM when the command dies, however (PR_SET_PDEATHSIG);
- everywhere, its standard input is a pipe from the command: end of file (the command
  closed it, or died) asks uvicorn to shut down, lifespan and services in order;
- it runs in a session of its own, so a Ctrl-C reaches the command, which stops it after
  its clients have sent what they hold;
- its output goes to a file, read back for the one error line when it does not start;
- it serves on a socket the command has bound and passes it, so no other server can
  take its port between choosing it and binding it and answer in its place.

No Prefect import in the command's process here: the server is the child.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from launchops.cli.serving import healthy as _healthy
from launchops.cli.serving import listening_socket, prefect_app_server
from launchops.errors import LaunchOpsError

STOP_GRACE_SECONDS = 15.0
_PR_SET_PDEATHSIG = 1
_RUNNING: list[subprocess.Popen[bytes]] = []  # this process's servers, for stop_running


@contextlib.contextmanager
def prefect_server(*, ephemeral: bool, timeout: float, what: str) -> Iterator[str]:
    """Prefect's server, started here for the block and stopped after it; yields its API
    URL. `ephemeral`: the temporary server's services only. One error line (naming
    `what` it was for) when it does not start."""
    with tempfile.TemporaryFile("w+") as log:
        process, url = _start(log, ephemeral, timeout, what)
        _RUNNING.append(process)
        try:
            yield url
        finally:
            stop(process)
            _RUNNING.remove(process)


def _start(
    log: IO[str], ephemeral: bool, timeout: float, what: str
) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "PREFECT_UI_ENABLED": "false", "PREFECT__SERVER_FINAL": "1"}
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    if ephemeral:
        env["PREFECT__SERVER_EPHEMERAL"] = "1"
    env.pop("PREFECT_API_URL", None)
    with listening_socket() as sock:  # the child holds its own copy once started
        port = sock.getsockname()[1]
        command = [sys.executable, "-m", __name__, str(sock.fileno()), str(os.getpid())]
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=log,
            pass_fds=(sock.fileno(),),
            start_new_session=True,  # a Ctrl-C is the command's; it stops the server after
        )
    url = f"http://127.0.0.1:{port}/api"
    try:
        healthy = _healthy(process, url, time.monotonic() + timeout)
    except BaseException:  # a stop while it starts (launchops.cli.stops): it served nothing
        process.terminate()  # its orderly stop waits for its start: seconds, not needed here
        stop(process, grace=1.0)
        raise
    if healthy:
        return process, url
    stop(process)
    log.seek(0)
    last = ([line.strip() for line in log.read().splitlines() if line.strip()] or ["no output"])[-1]
    raise LaunchOpsError(
        f"the Prefect server for {what} did not start ({last}); "
        "start one (prefect server start) and set PREFECT_API_URL"
    )


def stop(process: subprocess.Popen[bytes], grace: float = STOP_GRACE_SECONDS) -> None:
    """Ask the server to shut down in order (end of its input), then wait; SIGKILL after
    `grace` seconds."""
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def stop_running(grace: float = 5.0) -> None:
    """Every server this process started, stopped now (from any thread): for a command
    about to leave without unwinding."""
    for process in list(_RUNNING):
        stop(process, grace)


Progress = Callable[[str, str, str], None]


@contextlib.contextmanager
def temporary_prefect(
    configured: str | None, progress: Progress | None = None, folder: Path | None = None
) -> Iterator[None]:
    """The command's Prefect API for the block: `configured` (PREFECT_API_URL or Prefect's
    profile) when there is one; else the local server kept in the profile's `folder`
    (`launchops.cli.kept_server`), found or started; else (LAUNCHOPS_PREFECT_SERVER=
    temporary) a server of this command's own, stopped after it. Its start is said on
    the display; the clients send what they hold before the block ends."""
    if configured:
        yield
        return
    say = progress or (lambda *_: None)
    timeout = float(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120"))
    from launchops.cli.kept_server import folder_of, kept_mode, kept_prefect

    server: contextlib.AbstractContextManager[str]
    if folder is not None and kept_mode():
        server = kept_prefect(folder_of(folder), timeout, lambda text: say("", "prefect", text))
    else:
        say("", "prefect", "starting Prefect…")
        server = prefect_server(ephemeral=True, timeout=timeout, what="this command")
    with server as url:
        say("", "prefect", "")
        os.environ["PREFECT_API_URL"] = url
        try:
            with _settings(url):
                yield
        finally:
            _drain_clients()
            os.environ.pop("PREFECT_API_URL", None)


@contextlib.contextmanager
def _settings(url: str) -> Iterator[None]:
    """The URL in Prefect's settings too, every thread's, when Prefect was imported before
    it was set (its global settings are read from the environment once)."""
    if "prefect.context" not in sys.modules:
        yield
        return
    from prefect.context import refresh_global_settings_context

    refresh_global_settings_context()
    try:
        yield
    finally:
        os.environ.pop("PREFECT_API_URL", None)
        refresh_global_settings_context()


def _drain_clients(timeout: float = 5.0) -> None:
    """Events and logs still queued in this process, sent before their server stops."""
    if "prefect" not in sys.modules:
        return
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (EventsWorker, APILogWorker):
        with contextlib.suppress(Exception):
            worker.drain_all(timeout=timeout)


# ── the child ───────────────────────────────────────────────────────────────


def _die_with(parent: int) -> None:
    """SIGTERM from the kernel when the parent dies (Linux); gone at once if it already has."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        sys.exit(0)


def _watch_input(server: object) -> None:
    """End of standard input (the parent closed its pipe, or died): shut down in order."""
    with contextlib.suppress(OSError):
        while os.read(0, 1024):
            pass
    server.should_exit = True  # type: ignore[attr-defined]


def main(argv: list[str]) -> None:
    """The server, on the listening socket the command passed (its descriptor, `argv[0]`),
    for as long as the command (`argv[1]`, its process id) lives."""
    fd, parent = int(argv[0]), int(argv[1])
    _die_with(parent)
    server, sock = prefect_app_server(fd)
    threading.Thread(target=_watch_input, args=(server,), daemon=True).start()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main(sys.argv[1:])


__all__ = ["listening_socket", "prefect_server", "stop", "stop_running", "temporary_prefect"]
