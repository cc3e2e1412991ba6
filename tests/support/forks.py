"""`python -m launchops.cli ARGS` for the tests, forked from the suite's fork server
(`tests/support/forkserver.py`) instead of started fresh: the same command in a process of
its own (its pid, environment, folder, stdio, exit code and signals), without the second
or two of CPU a new process spends importing Prefect and the rest.

`run` and `Popen` take what `subprocess.run` and `subprocess.Popen` take, for the argv
`[sys.executable, "-m", MODULE, *ARGS]` of a module the server forks (`launchops.cli`,
`tests.support.crash`). Any other argv, `fresh=True` (a test of what a command imports or
starts), or LAUNCHOPS_TESTS_FRESH=1 in the test process's environment starts a new
process instead. What a user types into a shell (the docs' blocks, the README's
commands) finds the fork server's `launchops` first on PATH (tests/support/
shim.py), which hands the command to the server in turn: the installed entry
point (`launchops.cli:main`), with the arguments, stdio, signals and exit a shell sees.

What differs, seen from outside: /proc/PID/cmdline and /proc/PID/environ show the fork
server's (`ps` lists a forked command as `python -m tests.support.forkserver`); the
command's own `sys.argv` and `os.environ` are its own.

One server for the session: the first pytest process starts it (tests/conftest.py), the
xdist processes it starts find it named in their environment (LAUNCHOPS_TESTS_FORKSERVER),
and it ends with the process that started it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from tests.support.forkserver import FORKED_MODULES, HEADER

ROOT = Path(__file__).resolve().parents[2]
FRESH = "LAUNCHOPS_TESTS_FRESH"
SOCKET = "LAUNCHOPS_TESTS_FORKSERVER"  # the session's server, for the processes it starts
READY_WITHIN = 120.0
_server: dict[str, Any] = {}
_lock = threading.Lock()
_reaped = [0.0]  # the CPU seconds of the forked commands this process waited for


def reaped_cpu() -> float:
    """The CPU time of every forked command this process has waited for (what
    `resource.RUSAGE_CHILDREN` counts of the commands it starts itself)."""
    with _lock:
        return _reaped[0]


def forked(argv: list[str], fresh: bool = False) -> bool:
    """Whether `argv` is a command the fork server runs (`fresh`: never)."""
    return (
        not fresh
        and len(argv) >= 3
        and argv[0] == sys.executable
        and argv[1] == "-m"
        and argv[2] in FORKED_MODULES
        and not _all_fresh()
    )


def _all_fresh() -> bool:
    """LAUNCHOPS_TESTS_FRESH=1: every command a new process, as a user's shell starts it."""
    return os.environ.get(FRESH) == "1"


def start_shared() -> None:
    """The session's fork server, started now without waiting for it to be ready, its
    socket named in the environment that pytest-xdist's processes inherit: one server
    (one preload) for all of them; and its `launchops` (tests/support/shim.py)
    first on their PATH, for the commands a test's shell runs."""
    if not _all_fresh() and SOCKET not in os.environ:
        os.environ[SOCKET] = _launch()
        os.environ["PATH"] = f"{_shim_folder()}:{os.environ['PATH']}"


def _shim_folder() -> Path:
    return Path(os.environ[SOCKET]).parent / "bin"


def _python_shim(folder: str | Path) -> Path:
    """The `sys.executable` of the forked commands (tests/support/shim.py), on no PATH."""
    return Path(folder) / "python" / "python"


def worker_python() -> str | None:
    """The `python` pytest-xdist starts its processes with: the fork server's shim, which
    forks each from the server (Prefect, launchops and the rest imported once), or None
    (the suite's own Python) where commands are not forked."""
    if SOCKET not in os.environ or _all_fresh():
        return None
    return str(_python_shim(Path(os.environ[SOCKET]).parent))


def on_path(path: str) -> str:
    """`path` with this checkout's commands first, as the tests' users have them: the
    fork server's `launchops` (when there is one), then the suite's Python's own bin."""
    shim = f"{_shim_folder()}:" if SOCKET in os.environ and not _all_fresh() else ""
    return f"{shim}{Path(sys.executable).parent}:{path}"


def _launch() -> str:
    """Starts a fork server (it listens once it has preloaded): its socket's path. It
    ends when this process does."""
    folder = tempfile.mkdtemp(prefix="launchops-forks-")
    path = os.path.join(folder, "socket")
    source = (ROOT / "tests" / "support" / "shim.py").read_text()
    shims = [Path(folder) / "bin" / name for name in ("launchops", "prefect")]
    for shim in (*shims, _python_shim(folder)):
        shim.parent.mkdir(exist_ok=True)
        shim.write_text(f"#!{sys.executable} -IS\n{source}")  # one argument: -I, -S
        shim.chmod(0o755)
    watch_r, watch_w = os.pipe()
    # What it imports reads this environment once; each command's own replaces it.
    env = {name: value for name, value in os.environ.items() if not name.startswith("PREFECT_")}
    env["PREFECT_HOME"] = os.path.join(folder, "prefect")
    # Its stdout unbuffered, as PYTHONUNBUFFERED makes it: a command whose environment
    # asks for that gets it; one that does not writes sooner than it would (no test waits
    # on output that a buffer holds back).
    env["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.forkserver", path, str(watch_r)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
        pass_fds=(watch_r,),
    )
    os.close(watch_r)
    _server.update(process=process)
    atexit.register(_stop, process, watch_w, folder)
    return path


def _stop(process: subprocess.Popen[bytes], watch: int, folder: str) -> None:
    try:
        os.close(watch)  # the server's loop ends on it
        process.wait(timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        process.kill()
    shutil.rmtree(folder, ignore_errors=True)


def _connect() -> socket.socket:
    """A connection to the session's fork server (started here if none is named),
    waiting for it to listen."""
    with _lock:
        if SOCKET not in os.environ:
            os.environ[SOCKET] = _launch()
    deadline = time.monotonic() + READY_WITHIN
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(os.environ[SOCKET])
            return conn
        except (FileNotFoundError, ConnectionRefusedError):
            conn.close()
            ours = _server.get("process")
            if ours is not None and ours.poll() is not None:
                raise RuntimeError(f"the fork server ended ({ours.returncode})") from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"no fork server at {os.environ[SOCKET]}") from None
            time.sleep(0.05)


def _fd(given: Any, pipe_for: str, pipes: dict[str, int], default: int) -> tuple[int, bool]:
    """The descriptor the child gets for one of its stdio, and whether it is ours to
    close once sent."""
    if given is None:
        return (os.dup(default) if default >= 0 else os.open(os.devnull, os.O_RDWR)), True
    if given == subprocess.DEVNULL:
        return os.open(os.devnull, os.O_RDWR), True
    if given == subprocess.PIPE:
        read, write = os.pipe()
        if pipe_for == "stdin":
            pipes[pipe_for] = write
            return read, True
        pipes[pipe_for] = read
        return write, True
    if isinstance(given, int):
        return given, False
    return given.fileno(), False


class Popen:
    """A forked command, as much of `subprocess.Popen` as the tests use."""

    def __init__(
        self,
        args: list[str],
        *,
        stdin: Any = None,
        stdout: Any = None,
        stderr: Any = None,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        text: bool = False,
        start_new_session: bool = False,
        **unsupported: Any,
    ) -> None:
        if unsupported:
            raise TypeError(f"forks.Popen takes no {sorted(unsupported)}")
        self.args = list(args)
        self.returncode: int | None = None
        self._buffer = b""
        self._readers: list[threading.Thread] = []
        self._read: dict[str, Any] = {}
        pipes: dict[str, int] = {}
        sent = [_fd(stdin, "stdin", pipes, -1), _fd(stdout, "stdout", pipes, 1)]
        if stderr == subprocess.STDOUT:
            sent.append((os.dup(sent[1][0]), True))
        else:
            sent.append(_fd(stderr, "stderr", pipes, 2))
        try:
            self._conn = _connect()
            request = {
                "argv": self.args[2:],
                "env": dict(os.environ if env is None else env),
                "cwd": str(cwd or os.getcwd()),
                "session": start_new_session,
                "executable": str(_python_shim(Path(os.environ[SOCKET]).parent)),
            }
            body = json.dumps(request).encode()
            socket.send_fds(self._conn, [HEADER.pack(len(body)) + body], [fd for fd, _ in sent])
        finally:
            for fd, ours in sent:
                if ours:
                    os.close(fd)
        self.pid = int(self._line(None))
        self.stdin = self._open(pipes.get("stdin"), "w", text)
        self.stdout = self._open(pipes.get("stdout"), "r", text)
        self.stderr = self._open(pipes.get("stderr"), "r", text)

    @staticmethod
    def _open(fd: int | None, mode: str, text: bool) -> IO[Any] | None:
        if fd is None:
            return None
        return os.fdopen(fd, mode if text else f"{mode}b")

    def _line(self, timeout: float | None) -> str:
        """The server's next answer line (the pid, then the wait status), waiting up to
        `timeout` (0: not at all) for it; TimeoutError when it has not come."""
        end = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            self._conn.settimeout(left)
            try:
                chunk = self._conn.recv(64)
            except (TimeoutError, BlockingIOError):
                raise TimeoutError from None
            if not chunk:
                raise ConnectionError("the fork server went away")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(TimeoutError):
                self._status(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            try:
                self._status(timeout)
            except TimeoutError:
                raise subprocess.TimeoutExpired(self.args, timeout or 0) from None
        assert self.returncode is not None
        return self.returncode

    def _status(self, timeout: float | None) -> None:
        status, cpu = self._line(timeout).split()
        self.returncode = os.waitstatus_to_exitcode(int(status))
        self._conn.close()
        with _lock:
            _reaped[0] += float(cpu)

    def communicate(
        self, input: str | bytes | None = None, timeout: float | None = None
    ) -> tuple[Any, Any]:
        end = None if timeout is None else time.monotonic() + timeout
        if not self._readers:
            self._start_readers(input)
        for reader in self._readers:
            reader.join(None if end is None else max(0.0, end - time.monotonic()))
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        self.wait(None if end is None else max(0.0, end - time.monotonic()))
        for stream in (self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        return self._read.get("stdout"), self._read.get("stderr")

    def _start_readers(self, input: str | bytes | None) -> None:
        for name, stream in (("stdout", self.stdout), ("stderr", self.stderr)):
            if stream is not None:
                reader = threading.Thread(target=self._drain, args=(name, stream), daemon=True)
                reader.start()
                self._readers.append(reader)
        if self.stdin is not None:
            if input:
                with contextlib.suppress(BrokenPipeError):
                    self.stdin.write(input)
            with contextlib.suppress(BrokenPipeError):
                self.stdin.close()
        if not self._readers:  # nothing piped: join() has nothing to wait for
            self._readers.append(threading.Thread(target=lambda: None))
            self._readers[0].start()

    def _drain(self, name: str, stream: IO[Any]) -> None:
        self._read[name] = stream.read()

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __enter__(self) -> Popen:
        return self

    def __exit__(self, *exc: object) -> None:
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None and not stream.closed:
                stream.close()
        self.wait()


def popen(args: list[str], fresh: bool = False, **kwargs: Any) -> Popen | subprocess.Popen[Any]:
    """`subprocess.Popen(args, **kwargs)`, forked where the server runs the command."""
    return Popen(args, **kwargs) if forked(args, fresh) else subprocess.Popen(args, **kwargs)


def run(
    args: list[str],
    *,
    input: str | bytes | None = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    fresh: bool = False,
    **kwargs: Any,
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run(args, ...)`, forked where the server runs the command (`fresh`: a
    new process all the same, for a test of what the command imports or starts)."""
    if not forked(args, fresh):
        return subprocess.run(
            args,
            input=input,
            capture_output=capture_output,
            timeout=timeout,
            check=check,
            **kwargs,
        )
    if capture_output:
        kwargs.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with Popen(args, **kwargs) as process:
        try:
            out, err = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            raise subprocess.TimeoutExpired(args, timeout or 0, out, err) from None
    done = subprocess.CompletedProcess(args, process.returncode, out, err)
    if check:
        done.check_returncode()
    return done
