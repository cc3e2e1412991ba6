"""The suite's fork server (tests/support/forks.py) runs a command as a new process would:
the same output and exit code, the command's own environment (Prefect's settings read
from it, and no Prefect home made unless Prefect is asked), a process of its own that a
test can kill, and every wait bounded; and the `launchops` a test's shell finds on PATH
is the installed command, with its name, signals and exit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import launchops.web as web
from launchops.sandbox.process import free_port
from tests.support import forks
from tests.support.pipeline import ROOT, write_launch

CLI = [sys.executable, "-m", "launchops.cli"]


@pytest.fixture(autouse=True)
def forking(monkeypatch):
    """The fork server's tests fork, whatever LAUNCHOPS_TESTS_FRESH says for the rest."""
    monkeypatch.delenv(forks.FRESH, raising=False)


@pytest.fixture
def env(tmp_path):
    return {
        **os.environ,
        "COLUMNS": "120",
        "LAUNCHOPS_HOME": str(tmp_path / "home"),
        "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "PREFECT_API_URL": "http://127.0.0.1:9/api",
    }


def test_a_forked_command_says_what_a_new_process_says(env, tmp_path):
    bad = write_launch(tmp_path, "bad.yaml", key="bad", symbol="FIFTEEN-CHARSXX")
    good = write_launch(tmp_path, "good.yaml", key="good")
    for args in (
        ["--help"],
        ["launch", "--help"],
        ["validate", str(bad), str(good)],
        ["status", "nope"],
        ["schema"],
        ["no-such-command"],
    ):
        runs = [
            forks.run([*CLI, *args], env=env, cwd=ROOT, capture_output=True, text=True, fresh=fresh)
            for fresh in (False, True)
        ]
        forked, fresh = ((r.returncode, r.stdout, r.stderr) for r in runs)
        assert forked == fresh, args
    assert not (tmp_path / "prefect").exists()  # none of them asked Prefect for anything


def test_prefect_reads_the_commands_own_environment(env, tmp_path):
    api = f"http://127.0.0.1:{free_port()}/api"
    done = forks.run(
        [sys.executable, "-m", "prefect", "config", "view"],
        env={**env, "PREFECT_API_URL": api},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert api in done.stdout, done.stdout
    assert (tmp_path / "prefect").is_dir()  # Prefect's home, made as its import makes it


def test_a_forked_command_is_a_process_of_its_own_and_dies_of_its_signal(env, tmp_path):
    port = free_port()
    serve = [*CLI, "sandbox", "serve", "--port", str(port), "--fresh"]
    process = forks.popen(
        serve,
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert isinstance(process, forks.Popen)
    try:
        assert os.getpgid(process.pid) == process.pid  # its own session
        assert os.readlink(f"/proc/{process.pid}/cwd") == str(tmp_path)
        assert process.poll() is None
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=0.5)
    finally:
        process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL


def test_a_command_past_its_timeout_is_killed(env):
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        forks.run(
            [*CLI, "sandbox", "serve", "--port", str(free_port()), "--fresh"],
            env=env,
            capture_output=True,
            timeout=3,
        )
    assert time.monotonic() - started < 30


def test_what_it_does_not_fork_runs_as_before():
    assert forks.forked([*CLI, "status"])
    assert not forks.forked([*CLI, "status"], fresh=True)
    assert not forks.forked([sys.executable, "-c", "pass"])
    assert not forks.forked(["launchops", "status"])  # the installed script: a new process
    done = forks.run([sys.executable, "-c", "print(42)"], capture_output=True, text=True)
    assert done.stdout == "42\n"


def test_a_shells_launchops_is_the_installed_command(env, tmp_path):
    """The `launchops` first on the suite's PATH (the fork server's) says what the
    installed console script says, program name included."""
    shell = {**env, "PATH": forks.on_path(os.environ["PATH"])}
    assert subprocess.run(
        ["bash", "-c", "command -v launchops"], env=shell, capture_output=True, text=True
    ).stdout.startswith(str(Path(os.environ[forks.SOCKET]).parent))
    bad = write_launch(tmp_path, "bad.yaml", key="bad", symbol="FIFTEEN-CHARSXX")
    for line in ("launchops --help", f"launchops validate {bad}", "launchops no-such-command"):
        runs = [
            subprocess.run(
                ["bash", "-c", line],
                env={**shell, forks.FRESH: fresh},
                capture_output=True,
                text=True,
                timeout=120,
            )
            for fresh in ("0", "1")
        ]
        forked, fresh = ((r.returncode, r.stdout, r.stderr) for r in runs)
        assert forked == fresh, line
    assert "Usage: launchops " in runs[0].stdout + runs[0].stderr


def test_a_command_whose_shell_is_killed_dies_with_it(env):
    """SIGTERM to the shim reaches the command, which stops its sandbox and exits 0 as the
    installed command does; SIGKILL to the shim kills the command too."""
    shell = {**env, "PATH": forks.on_path(os.environ["PATH"])}
    for signum, status in ((signal.SIGTERM, 0), (signal.SIGKILL, -signal.SIGKILL)):
        port = free_port()
        shim = subprocess.Popen(
            ["launchops", "sandbox", "serve", "--port", str(port), "--fresh"],
            env=shell,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _until(lambda port=port: _answers(port), f"the sandbox on {port}")
            shim.send_signal(signum)
            assert shim.wait(timeout=30) == status, signum
            assert _until(lambda port=port: not _answers(port), f"the sandbox on {port} stopped")
        finally:
            shim.kill()


def _answers(port: int) -> bool:
    try:
        return web.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code < 500
    except httpx.TransportError:
        return False


def _until(condition, what: str, within: float = 60) -> bool:
    """True once `condition()` is; fails the test with `what` after `within` seconds."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
    return True


def test_the_cpu_rows_name_a_command_by_its_kind_not_its_paths_or_options():
    """What `bench/suite_cpu.py --forks` reads: a command's program and subcommands, never
    its paths or options."""
    from tests.support.forkserver import command_kind

    python = sys.executable
    assert command_kind(["launchops.cli", "deploy", "--pool", "p", "--batch", "/tmp/x"]) == (
        "launchops deploy"
    )
    assert command_kind(["/venv/bin/prefect", "server", "start", "--port", "1"]) == (
        "prefect server start"
    )
    assert command_kind(["launchops.cli", "launch", "/tmp/a/b.yaml", "--json"]) == (
        "launchops launch"
    )
    app = ["uvicorn", "--factory", "prefect.server.api.server:create_app", "--port", "9"]
    assert command_kind(app) == "uvicorn prefect.server.api.server:create_app"
    assert command_kind(["prefect.engine"]) == "prefect.engine"
    assert command_kind(["launchops.cli", "--json", "value"]) == "launchops"  # an option's
    assert command_kind([python, "-c", "print(1)"]) == os.path.basename(python)
    assert command_kind([]) == "?"


XDIST_PROCESS_TEST = """
import logging, os, sys
from pathlib import Path


def test_where_it_runs():
    parent = Path(f"/proc/{os.getppid()}/cmdline").read_bytes().split(b"\\0")
    print("PARENT", parent[1:3], "EXECUTABLE", sys.executable, "WORKER",
          os.environ.get("PYTEST_XDIST_WORKER"))
    assert [1, 2] == [1, 3]


def test_what_it_logs_is_captured_after_prefects_first_setting(caplog):
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: "http://127.0.0.1:9/api"}):
        logging.getLogger("launchops.seen").warning("seen")
    assert [r.getMessage() for r in caplog.records] == ["seen"]
"""


def test_xdist_processes_are_forked_and_keep_what_pytest_gives_a_new_one(tmp_path):
    """pytest-xdist's processes (two, here, in a session of their own over one failing
    test) are forked from the fork server, as the suite's are: their asserts rewritten
    (the failure says which item differs), no warning that a plugin's modules came
    imported, `sys.executable` the suite's Python, Prefect's logging set up before a test
    captures its logs (not in the middle of one, by its first setting), and the session's
    outcome."""
    (tmp_path / "test_where.py").write_text(XDIST_PROCESS_TEST)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider"),
            *("-p", "tests.conftest", "-c", str(ROOT / "pyproject.toml")),
            *("--rootdir", str(tmp_path), str(tmp_path / "test_where.py")),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "PARENT [b'-m', b'tests.support.forkserver']" in out, out
    assert f"EXECUTABLE {sys.executable} WORKER gw" in out, out
    assert "At index 1 diff: 2 != 3" in out, out
    assert "Warning" not in out, out
    assert "1 failed, 1 passed" in out, out
