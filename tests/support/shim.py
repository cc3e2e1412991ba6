"""The suite's commands as a shell or Prefect starts them, run by the suite's fork server
(tests/support/forks.py) instead of a new interpreter. Installed twice, as a script run
by the suite's Python, isolated and without site-packages (it starts in milliseconds):

- `launchops` and `prefect`, first on the PATH of the suite's processes: the installed
  commands, for what a test's shell runs (the docs' blocks, the README's commands);
- `python`, the `sys.executable` of every forked command (not on any PATH): what a
  Prefect worker or `serve` starts for a flow run (`python -m
  prefect.runner._workspace_supervisor`, which execs `python -m prefect.engine`; Prefect
  3.8 starts the engine itself) is forked too, as is each of pytest-xdist's processes
  (`python -u -c` execnet's bootstrap line); anything else it is asked (a temporary
  Prefect server, a sandbox, another `-c`) is the suite's Python itself, exec'd in this
  same process (its pid and parent kept).

It hands the server its arguments, environment, folder and stdio, forwards the signals a
shell or a worker sends (SIGINT, SIGTERM, SIGHUP, SIGQUIT) to the command, and ends as
the command ended: its exit code, or its death by the same signal. A command whose shim
is SIGKILLed is killed too (the server watches the shim). On a terminal, with
LAUNCHOPS_TESTS_FRESH=1, or with no fork server in its environment, it runs the command
itself.

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
# What Prefect starts for a flow run, forked (`python -m MODULE ARGS`).
FLOW_RUN_MODULES = ("prefect.runner._workspace_supervisor", "prefect.engine")
# What pytest-xdist starts for each of its processes (execnet's `popen_bootstrapline`, run
# as `python -u -c LINE`), forked too when tests/conftest.py names this `python` for them.
EXECNET_BOOTSTRAP = "import sys;exec(eval(sys.stdin.readline()))"


# The installed commands a shell finds here, by their console script's entry point.
ENTRIES = {"launchops": "launchops.cli:main", "prefect": "prefect.cli:app"}


def installed(name: str) -> str:
    """The installed command `name`: the console script beside the suite's Python."""
    return os.path.join(os.path.dirname(sys.executable), name)


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


def request() -> tuple[dict, list[str]]:
    """What to ask the server for, and the command to exec when it cannot be asked."""
    asked = {
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        "session": False,
        "watch": os.getpid(),
    }
    name = os.path.basename(sys.argv[0])
    if name in ENTRIES:
        return {**asked, "entry": ENTRIES[name], "argv": sys.argv}, [
            installed(name),
            *sys.argv[1:],
        ]
    itself = [sys.executable, *sys.argv[1:]]
    if sys.argv[1:2] == ["-m"] and sys.argv[2:3] and sys.argv[2] in FLOW_RUN_MODULES:
        return {**asked, "argv": sys.argv[2:], "executable": sys.argv[0]}, itself
    if sys.argv[1:] == ["-u", "-c", EXECNET_BOOTSTRAP]:  # its output unbuffered, as the
        return {**asked, "code": EXECNET_BOOTSTRAP}, itself  # fork server's is
    return {}, itself


def on_terminal(asked: dict) -> bool:
    """Whether the command would meet a terminal: one a forked child cannot take as its
    own (its process group is the fork server's). pytest-xdist's processes only write to
    one (their stderr), as a background job may."""
    fds = (0, 1) if "code" in asked else (0, 1, 2)
    return any(os.isatty(fd) for fd in fds)


def main() -> None:
    asked, itself = request()
    path = os.environ.get("LAUNCHOPS_TESTS_FORKSERVER")
    fresh = os.environ.get("LAUNCHOPS_TESTS_FRESH") == "1"
    conn = None
    if asked and path and not fresh and not on_terminal(asked):
        conn = connect(path)
    if conn is None:
        os.execv(itself[0], itself)
    body = json.dumps(asked).encode()
    socket.send_fds(conn, [HEADER.pack(len(body)) + body], [0, 1, 2])
    status = status_of(conn)
    if status is None:
        print(f"{sys.argv[0]}: the suite's fork server went away", file=sys.stderr)
        sys.exit(1)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
