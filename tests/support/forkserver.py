"""The suite's fork server: a process that has imported launchops, its flows and Prefect
once, and forks a command for each request (`tests/support/forks.py` asks).

    python -m tests.support.forkserver SOCKET FD    # started by forks.py, one a session

A command started fresh spends most of its CPU importing (`python -X importtime -c "import
launchops.flows.launch"`: Prefect, SQLAlchemy, solders, the step tasks); the suite starts
hundreds of them. A child forked from here starts with those modules imported, then takes
the command's session, stdio, folder and environment, as a new process would, runs
`python -m MODULE ARGS` (runpy, as `-m` does) and exits as the interpreter does (its
threads joined, its atexit handlers run, Prefect's included, its output flushed). What a
module read from the environment when it was imported is read again from the command's:
Prefect's settings, its home and its logging, made when the command first asks Prefect
for a setting (launchops reads nothing at import).

One thread, one loop: a fork from a process with other threads could copy a lock one of
them holds. The loop accepts a request (its JSON and three file descriptors: stdin,
stdout, stderr) and forks; the child answers its pid once it is set up; the loop reaps
children on SIGCHLD, answering each one's wait status and CPU time on its request's
connection; and it watches the shim (tests/support/shim.py) that asked for a child, if one
did, killing the child when the shim ends first. It ends when the process that started
it closes the pipe it watches (FD), so it never outlives the session; its children are
left to run out, as a shell's are.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import itertools
import json
import logging
import os
import pkgutil
import runpy
import selectors
import signal
import socket
import struct
import sys
import threading
import traceback
import types
from collections.abc import Callable
from typing import Any

# What the commands import, imported once here (each in a try: a module that cannot be
# imported here is imported by the command that needs it, as in a new process).
PRELOAD_PACKAGES = ("launchops", "launchops.flows", "launchops.tasks")
PRELOAD_SKIPPED = ("__main__", "pytest_plugin")
PRELOAD_MODULES = (
    "tests.support.crash",
    "tests.support.open_journal",
    "prefect.cli",
    "prefect.cli.server",
    "prefect.cli.worker",
    "prefect.cli.deployment",
    "prefect.cli.work_pool",
    "prefect.server.api.server",
    "prefect.workers.process",
    "uvicorn.main",
    "prefect.runner._workspace_supervisor",
    "prefect.engine",
    # What the commands import late, each in most of the processes that need it (counted
    # with `py-spy record --subprocesses` over the suite, 2026-12-06): a launch's signature
    # feed (solana-py's pydantic models, ~0.12 s of CPU in a forked child), the journal's
    # and Prefect's PostgreSQL drivers, migrations, and what a flow or a deploy runs.
    "solana.rpc.websocket_api",
    "solana.rpc.async_api",
    "psycopg",
    "alembic",
    "anyio._backends._asyncio",
    "aiolimiter",
    "prefect.task_engine",
    "prefect.utilities.visualization",
    "prefect.deployments.runner",
    "prefect.cli.deploy._core",
    "dateparser",
)
# Where each forked command's CPU time is written when it is reaped, one JSON row a
# command (`python -m pytest -p bench.suite_cpu` sets it: `bench/suite_cpu.py --forks`).
CPU_ROWS = os.environ.get("LAUNCHOPS_FORKS_CPU_ROWS", "")
FORKED_MODULES = frozenset(
    {
        "launchops.cli",
        "tests.support.crash",
        "tests.support.open_journal",
        "tests.support.prefect_blocks",
        "prefect",
        "uvicorn",
    }
)
HEADER = struct.Struct("!I")


def preload() -> None:
    for package in PRELOAD_PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            if info.name.rsplit(".", 1)[-1] in PRELOAD_SKIPPED:
                continue
            try:
                importlib.import_module(info.name)
            except Exception:
                continue
    for name in PRELOAD_MODULES:
        with contextlib.suppress(ImportError):  # a module of another Prefect's layout
            importlib.import_module(name)


def read_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One request: a length, then its JSON; the three descriptors come with the first
    bytes."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < HEADER.size or len(data) < HEADER.size + HEADER.unpack_from(data)[0]:
        more = conn.recv(1 << 16)
        if not more:
            raise ConnectionError("the request ended early")
        data += more
    (size,) = HEADER.unpack_from(data)
    return json.loads(data[HEADER.size : HEADER.size + size]), fds


class Server:
    def __init__(self, path: str, watched: int, pristine: Pristine) -> None:
        self.pristine = pristine
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.watched = watched
        self.wakeup_r, self.wakeup_w = os.pipe()
        os.set_blocking(self.wakeup_w, False)
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, socket.socket] = {}
        self.commands: dict[int, str] = {}  # a child's pid: its command's kind (CPU_ROWS)
        self.watches: dict[int, int] = {}  # a child's pid: the pidfd of the shim it dies with

    def serve(self) -> None:
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wakeup_w)
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wakeup_r, selectors.EVENT_READ, "reap")
        self.selector.register(self.watched, selectors.EVENT_READ, "parent")
        while True:
            for key, _ in self.selector.select():
                if key.data == "parent":
                    return
                if key.data == "reap":
                    os.read(self.wakeup_r, 4096)
                    self.reap()
                elif key.data == "accept":
                    self.accept()
                else:
                    self.shim_ended(key.data)

    def accept(self) -> None:
        conn, _ = self.listener.accept()
        try:
            request, fds = read_request(conn)
        except (OSError, ValueError):
            conn.close()
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self.become(request, fds, conn)  # never returns: the command's exit
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn  # the child answers its pid; this, its wait status
        if CPU_ROWS:
            self.commands[pid] = command_kind(request.get("argv", ["-c"]))
        if request.get("watch"):
            self.watch(pid, request["watch"])
        self.reap()

    def reap(self) -> None:
        while self.children:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.unwatch(pid)
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            cpu = usage.ru_utime + usage.ru_stime
            if CPU_ROWS:
                write_cpu_row(self.commands.pop(pid, "?"), cpu)
            with contextlib.suppress(OSError):
                conn.sendall(f"{status} {cpu:.6f}\n".encode())
            conn.close()

    def watch(self, child: int, shim: int) -> None:
        """`child` SIGKILLed when process `shim` (what a shell or a worker started) ends
        first: as their kill of the command would reach it. Watched here, not in the
        child, so that it holds across an exec (Prefect's flow-run supervisor execs its
        engine)."""
        try:
            watched = os.pidfd_open(shim)
        except ProcessLookupError:
            os.kill(child, signal.SIGKILL)
            return
        self.watches[child] = watched
        self.selector.register(watched, selectors.EVENT_READ, child)

    def unwatch(self, child: int) -> None:
        watched = self.watches.pop(child, None)
        if watched is not None:
            self.selector.unregister(watched)
            os.close(watched)

    def shim_ended(self, child: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
        self.unwatch(child)

    def become(self, request: dict[str, Any], fds: list[int], conn: socket.socket) -> None:
        """In the child: the command's process (its session, stdio, folder and
        environment, then its pid answered, as `subprocess.Popen` returns once they are
        set), then its run, to its exit."""
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        self.selector.close()
        for sock in (self.listener, *self.children.values()):
            sock.close()
        for fd in (self.wakeup_r, self.wakeup_w, self.watched, *self.watches.values()):
            os.close(fd)
        if request["session"]:
            os.setsid()
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
        for fd in set(fds) - {0, 1, 2}:
            os.close(fd)
        try:
            os.chdir(request["cwd"])
        except OSError as missing:
            print(f"fork server: {missing}", file=sys.stderr)
            finish(127, conn)
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = os.getcwd()  # where `python -m` looks first
        self.pristine.restore()
        with contextlib.suppress(OSError):
            conn.sendall(f"{os.getpid()}\n".encode())
        conn.close()
        if request.get("executable"):  # tests/support/shim.py, as `python`
            sys.executable = request["executable"]
        finish(run_request(request))


def run_request(request: dict[str, Any]) -> int:
    """The command asked for, to its exit code: an installed command, a pytest-xdist
    process (tests/support/shim.py asks for both) or `python -m MODULE ARGS`."""
    if request.get("entry"):
        sys.argv = list(request["argv"])
        return run_script(request["entry"])
    if request.get("code"):
        sys.argv = ["-c"]
        prefect_now()
        return run_code(request["code"])
    module, *args = request["argv"]
    sys.argv = [module, *args]
    return run_module(module)


def run_script(entry: str) -> int:
    """An installed console script's run (`module:function`, as pip writes its wrapper:
    `sys.exit(function())`), with a `__main__` of a script, as click reads it for the
    program's name."""
    module, _, function = entry.partition(":")
    script = types.ModuleType("__main__")
    script.__file__ = sys.argv[0]
    sys.modules["__main__"] = script
    return run(lambda: sys.exit(getattr(importlib.import_module(module), function)()))


def run_code(code: str) -> int:
    """`python -c code`'s run, in a `__main__` of its own."""
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    return run(lambda: exec(compile(code, "<string>", "exec"), main.__dict__))


def run_module(module: str) -> int:
    """`python -m module`'s run, to its exit code, as the interpreter reports one."""
    return run(lambda: runpy.run_module(module, run_name="__main__", alter_sys=True))


def run(program: Callable[[], Any]) -> int:
    """`program`'s run, to its exit code, as the interpreter reports one."""
    try:
        program()
    except SystemExit as done:
        if done.code is None:
            return 0
        if isinstance(done.code, int):
            return done.code
        print(done.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        traceback.print_exc()
        return -signal.SIGINT
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def finish(code: int, conn: socket.socket | None = None) -> None:
    """The interpreter's exit, without its teardown of every module and object: that
    teardown writes to each page the fork shares with the server (copying them all, most
    of a short command's CPU). What a program can see of an exit is kept, in the
    interpreter's order: its other threads joined, its atexit handlers run, its output
    flushed; a death by SIGINT stays one."""
    if conn is not None:  # ended before it ran: its pid still comes first
        with contextlib.suppress(OSError):
            conn.sendall(f"{os.getpid()}\n".encode())
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if code == -signal.SIGINT:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code & 0xFF)


class Pristine:
    """What the child must not inherit from the server's own start: the logging set-up
    Prefect's import made (with the server's environment) is taken off, and Prefect's
    settings and logging are made again from the command's environment when the command
    first asks Prefect for a setting (as its import would have, in a new process: a
    command that never uses Prefect never makes PREFECT_HOME)."""

    def __init__(self) -> None:
        root = logging.getLogger()
        self.root = (root.level, list(root.handlers))
        self.loggers = {
            name: (logger.level, list(logger.handlers), logger.propagate, logger.disabled)
            for name, logger in logging.Logger.manager.loggerDict.items()
            if isinstance(logger, logging.Logger)
        }
        self.handlers = list(logging._handlerList)  # type: ignore[attr-defined]

    def restore(self) -> None:
        for name, logger in logging.Logger.manager.loggerDict.items():
            if isinstance(logger, logging.Logger):
                level, handlers, propagate, disabled = self.loggers.get(
                    name, (logging.NOTSET, [], True, False)
                )
                logger.setLevel(level)
                logger.handlers[:] = handlers
                logger.propagate, logger.disabled = propagate, disabled
        root = logging.getLogger()
        root.setLevel(self.root[0])
        root.handlers[:] = self.root[1]
        logging._handlerList[:] = self.handlers  # type: ignore[attr-defined]
        prefect_on_first_use()


def prefect_on_first_use() -> None:
    context = sys.modules.get("prefect.context")
    if context is None:
        return
    settings_context = context.SettingsContext
    original = settings_context.__dict__["get"]

    def first_get(cls: Any) -> Any:
        settings_context.get = original  # type: ignore[method-assign]
        context.GLOBAL_SETTINGS_CONTEXT = context.root_settings_context()
        logging_setup = sys.modules.get("prefect.logging.configuration")
        if logging_setup is not None:
            logging_setup.PROCESS_LOGGING_CONFIG = {}
            logging_setup.setup_logging()
        server_cli = sys.modules.get("prefect.cli._server_utils")
        if server_cli is not None and hasattr(server_cli, "SERVICES_PID_FILE"):
            home = context.GLOBAL_SETTINGS_CONTEXT.settings.home
            server_cli.SERVICES_PID_FILE = home / "services.pid"  # a path made at import
        return settings_context.get()

    settings_context.get = classmethod(first_get)  # type: ignore[method-assign, assignment]


def prefect_now() -> None:
    """Prefect's settings and logging made now, from the process's environment, as
    `import prefect` makes them in a new interpreter: a pytest-xdist process imports it
    before its first test, and pytest's log capture (caplog) adds its handler to a root
    logger Prefect has already configured, not to one Prefect's first setting replaces
    in the middle of a test."""
    context = sys.modules.get("prefect.context")
    if context is not None:
        context.SettingsContext.get()


def command_kind(argv: list[str]) -> str:
    """What a command is, without its paths and options: its program and the subcommand
    words after it (`launchops deploy`, `prefect server start`, `prefect.engine`)."""
    if not argv:
        return "?"
    if argv == ["-c"]:
        return "pytest-xdist process"
    program = os.path.basename(argv[0]).removesuffix(".cli")
    words = list(itertools.takewhile(_is_word, argv[1:3]))  # up to the first option or path
    if "prefect.server.api.server:create_app" in argv:
        words = ["prefect.server.api.server:create_app"]  # a Prefect API server
    return " ".join([program, *words])


def _is_word(arg: str) -> bool:
    return arg.replace("-", "").isalpha() and not arg.startswith("-")


def write_cpu_row(kind: str, cpu: float) -> None:
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(CPU_ROWS), exist_ok=True)
        with open(CPU_ROWS, "a") as rows:
            rows.write(json.dumps({"command": kind, "cpu": round(cpu, 3)}) + "\n")


def main() -> None:
    path, watched = sys.argv[1], int(sys.argv[2])
    pristine = Pristine()
    preload()
    gc.collect()
    gc.freeze()  # what is preloaded stays out of the children's collections (and pages)
    Server(path, watched, pristine).serve()  # clients connect once it listens


if __name__ == "__main__":
    main()
