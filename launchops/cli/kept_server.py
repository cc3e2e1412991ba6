"""A local Prefect server that outlives the command that started it: Prefect's start paid
once, not per command.

With no PREFECT_API_URL, the first command that runs a flow starts a server (loopback
only, the same app as `launchops.cli.prefect_server`'s) in a session of its own, and
keeps where it serves in the profile's folder (`prefect-server/server.json`); the next
command finds it there, checks that it answers, and uses it. Each command marks it used
(`prefect-server/used`, touched when it starts, while it runs and when it ends); the
server stops itself once it has been idle for `LAUNCHOPS_PREFECT_IDLE_SECONDS` (600 by
default). `launchops prefect status` lists it, `launchops prefect stop` stops it.
`LAUNCHOPS_PREFECT_SERVER=temporary` keeps the old way: a server per command, that dies
with it. Two commands starting together start one server: the start is under a lock.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from launchops.cli.serving import healthy, listening_socket, prefect_app_server
from launchops.errors import LaunchOpsError
from launchops.locks import file_lock

IDLE_SECONDS = 600.0
STOP_SECONDS = 15.0


def idle_seconds() -> float:
    return float(os.environ.get("LAUNCHOPS_PREFECT_IDLE_SECONDS", IDLE_SECONDS))


def kept_mode() -> bool:
    """Whether commands share a kept server (the default), or each starts its own."""
    return os.environ.get("LAUNCHOPS_PREFECT_SERVER", "kept") != "temporary"


def folder_of(profile_dir: Path) -> Path:
    return profile_dir / "prefect-server"


def found(folder: Path) -> dict[str, Any] | None:
    """The kept server of `folder` when it is alive and answers: its record (pid, url,
    startedAt); None otherwise (a record left by a server that died is removed)."""
    record_file = folder / "server.json"
    try:
        record = json.loads(record_file.read_text())
        os.kill(int(record["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        with contextlib.suppress(OSError):
            record_file.unlink()
        return None
    try:
        with httpx.Client(timeout=2.0) as client:
            if client.get(f"{record['url']}/health").status_code == 200:
                return record
    except httpx.HTTPError:
        pass
    return None


@contextlib.contextmanager
def kept_prefect(folder: Path, timeout: float, say: Callable[[str], None]) -> Iterator[str]:
    """The kept server's API URL for the block: found, or started (`say` says so while it
    starts); marked used while the block runs, so that it does not stop meanwhile."""
    folder.mkdir(parents=True, exist_ok=True)
    with file_lock(folder / "lock"):
        record = found(folder)
        if record is None:
            say("starting Prefect…")
            record = _start(folder, timeout)
    used = folder / "used"
    used.touch()
    done = threading.Event()
    every = max(0.5, min(20.0, idle_seconds() / 4))

    def mark() -> None:
        while not done.wait(every):
            with contextlib.suppress(OSError):
                used.touch()

    marker = threading.Thread(target=mark, daemon=True, name="prefect-server-used")
    marker.start()
    try:
        yield str(record["url"])
    finally:
        done.set()
        with contextlib.suppress(OSError):
            used.touch()  # idle from now


def _start(folder: Path, timeout: float) -> dict[str, Any]:
    env = {**os.environ, "PREFECT_UI_ENABLED": "false", "PREFECT__SERVER_FINAL": "1"}
    env["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    env["PREFECT__SERVER_EPHEMERAL"] = "1"
    env.pop("PREFECT_API_URL", None)
    log_path = folder / "server.log"
    (folder / "used").touch()  # used from its start: its idle time counts from here
    with log_path.open("w") as log, listening_socket() as sock:
        port = sock.getsockname()[1]
        command = [sys.executable, "-m", __name__, str(sock.fileno()), str(folder)]
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            pass_fds=(sock.fileno(),),
            start_new_session=True,  # not the command's: it outlives it
        )
    url = f"http://127.0.0.1:{port}/api"
    if not healthy(process, url, time.monotonic() + timeout):
        process.kill()
        process.wait()
        lines = [line.strip() for line in log_path.read_text().splitlines() if line.strip()]
        raise LaunchOpsError(
            f"the local Prefect server did not start ({(lines or ['no output'])[-1]}); "
            "start one (prefect server start) and set PREFECT_API_URL"
        )
    record = {"pid": process.pid, "url": url, "startedAt": time.time()}
    (folder / "server.json").write_text(json.dumps(record))
    return record


def stop_kept(folder: Path) -> dict[str, Any] | None:
    """Stop the kept server of `folder` (SIGTERM: it stops in order; SIGKILL after 15 s);
    its record, or None when none ran."""
    record = found(folder)
    if record is None:
        return None
    pid = int(record["pid"])
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.1)
    if _alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        (folder / "server.json").unlink()
    return record


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead and not yet reaped by its parent, does not)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped, when this process started it
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


# ── the server ──────────────────────────────────────────────────────────────


def _watch_idle(server: object, used: Path) -> None:
    """Stop once nothing has marked the server used for the idle time (counted from when
    it serves: its start is not idleness)."""
    idle = idle_seconds()
    last = time.time()
    while True:
        time.sleep(max(0.2, min(5.0, idle / 4)))
        if not getattr(server, "started", True):
            last = time.time()
            continue
        with contextlib.suppress(OSError):
            last = max(last, used.stat().st_mtime)
        if time.time() - last > idle:
            server.should_exit = True  # type: ignore[attr-defined]
            return


def main(argv: list[str]) -> None:
    """The kept server, on the socket passed (`argv[0]`), for the folder `argv[1]`."""
    fd, folder = int(argv[0]), Path(argv[1])
    server, sock = prefect_app_server(fd)
    threading.Thread(target=_watch_idle, args=(server, folder / "used"), daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        with contextlib.suppress(OSError, ValueError):
            record = json.loads((folder / "server.json").read_text())
            if record.get("pid") == os.getpid():
                (folder / "server.json").unlink()


if __name__ == "__main__":
    main(sys.argv[1:])


__all__ = ["folder_of", "found", "idle_seconds", "kept_mode", "kept_prefect", "stop_kept"]
