"""`launchops` as a shell finds it on the suite's PATH: the installed command, run by the
suite's fork server (tests/support/forks.py) instead of a new interpreter.

The fork server starts it as `launchops` in a folder first on the PATH of the suite's
processes (a two-line script: this module run by the suite's Python, isolated, without
site-packages, so that it starts in milliseconds). It hands the server its arguments,
environment, folder and stdio, forwards the signals a shell sends (SIGINT, SIGTERM,
SIGHUP, SIGQUIT) to the command, and ends as the command ended: its exit code, or its
death by the same signal. A command whose shim is SIGKILLed is killed too (the child
watches the shim). On a terminal, with LAUNCHOPS_TESTS_FRESH=1, or with no fork server
in its environment, it runs the installed command itself.

Only the standard library: no launchops, no tests package (it runs without them).
"""

import json
import os
import signal
import socket
import struct
import sys
import time

HEADER = struct.Struct("!I")  # tests/support/forkserver.py's
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def installed() -> str:
    """The installed `launchops`: the console script beside the suite's Python."""
    return os.path.join(os.path.dirname(sys.executable), "launchops")


def connect(path: str) -> socket.socket | None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
            return conn
        except (FileNotFoundError, ConnectionRefusedError):
            conn.close()
            time.sleep(0.05)
    return None


def forward(pid: int) -> None:
    for signum in FORWARDED:
        signal.signal(signum, lambda signum, _: os.kill(pid, signum))


def status_of(conn: socket.socket) -> int | None:
    """The command's wait status, its pid first (signals are forwarded from then on)."""
    buffer, pid = b"", None
    while chunk := conn.recv(64):
        buffer += chunk
        answers = buffer.split(b"\n")
        if pid is None and len(answers) > 1:
            pid = int(answers[0])
            forward(pid)
        if len(answers) > 2:
            return int(answers[1].split()[0])
    return None


def main() -> None:
    path = os.environ.get("LAUNCHOPS_TESTS_FORKSERVER")
    fresh = os.environ.get("LAUNCHOPS_TESTS_FRESH") == "1"
    conn = None
    if path and not fresh and not any(os.isatty(fd) for fd in (0, 1, 2)):
        conn = connect(path)
    if conn is None:
        os.execv(installed(), [installed(), *sys.argv[1:]])
    request = {
        "entry": "launchops.cli:main",
        "argv": sys.argv,
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        "session": False,
        "watch": os.getpid(),
    }
    body = json.dumps(request).encode()
    socket.send_fds(conn, [HEADER.pack(len(body)) + body], [0, 1, 2])
    status = status_of(conn)
    if status is None:
        print("launchops: the suite's fork server went away", file=sys.stderr)
        sys.exit(1)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
