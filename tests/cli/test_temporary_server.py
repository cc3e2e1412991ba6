"""The Prefect server a command starts for itself (LAUNCHOPS_PREFECT_SERVER=temporary, no
PREFECT_API_URL): the display says it is starting, it stops without a traceback, and it
dies with the command however the command dies (here `kill -9`): no orphan server is
left behind. (The local server commands share by default: tests/cli/test_kept_server.py.)"""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from tests.support import prefect_db
from tests.support.pipeline import launchops, profile_env, write_launch
from tests.support.terminal import Terminal

STOP_NOISE = ("Traceback", "Error flushing", "Exception during reset", "CancelledError")


def _env(sandbox, tmp_path: Path, first: bool = False) -> dict[str, str]:
    """Nothing configured, as on a fresh machine but for a server per command; a Prefect
    home whose database a command run before has made (its migrations are the first
    start's: `first` keeps it empty)."""
    home = tmp_path / "prefect"
    if not first:
        prefect_db.seed_home(home)
    env = profile_env(
        sandbox, tmp_path / "home", PREFECT_HOME=str(home), LAUNCHOPS_PREFECT_SERVER="temporary"
    )
    env.pop("PREFECT_API_URL", None)
    return env


def _servers_of(prefect_home: Path) -> list[int]:
    """Live processes (zombies aside) running with this PREFECT_HOME: a Prefect server, or
    anything else the command left."""
    found = []
    wanted = f"PREFECT_HOME={prefect_home}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if wanted in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def _none_left(prefect_home: Path, within: float) -> list[int]:
    deadline = time.monotonic() + within
    while (left := _servers_of(prefect_home)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def test_a_launch_killed_with_minus_9_leaves_no_prefect_server(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = _env(sandbox, tmp_path)
    file = write_launch(tmp_path / "launches", key="killed-mid-launch")
    # The command SIGKILLs itself once its transactions are signed and journaled: a kill -9
    # mid-launch, its flow run and its temporary Prefect server up.
    done = launchops(env, "launch", str(file), "--json", kill="sign: journaled")
    assert done.returncode == -9, done.stderr[-2000:]
    assert _none_left(tmp_path / "prefect", within=30) == []
    # The launch resumes where it stopped, through a server of its own again.
    again = launchops(env, "launch", str(file), "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    assert '"state": "registered"' in again.stdout
    assert _none_left(tmp_path / "prefect", within=30) == []


def test_prefect_stops_without_a_traceback(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = _env(sandbox, tmp_path)
    retry = launchops(env, "registrations", "retry")  # nothing to do
    assert retry.returncode == 0, retry.stderr[-2000:]
    folder = tmp_path / "launches"
    for index in range(3):
        write_launch(folder, f"l{index}.yaml", key=f"quiet-stop-{index}")
    batch = launchops(env, "batch", str(folder), "--json")
    assert batch.returncode == 0, batch.stderr[-2000:]
    for done in (retry, batch):
        assert not [noise for noise in STOP_NOISE if noise in done.stderr], done.stderr
    assert _none_left(tmp_path / "prefect", within=10) == []


@pytest.fixture
def terminal():
    term = Terminal(120, 40)
    yield term
    term.close()


def test_the_display_says_prefect_is_starting(sandbox_factory, tmp_path, terminal):
    sandbox = sandbox_factory()
    env = _env(sandbox, tmp_path, first=True)  # the first start, migrations and all
    file = write_launch(tmp_path, key="says-starting")
    command = [sys.executable, "-m", "launchops.cli", "launch", str(file)]
    terminal.run(command, env, tmp_path / "run.sh")
    terminal.wait_for(lambda text: "starting Prefect…" in text or "EXIT=" in text)
    assert "starting Prefect…" in terminal.screen()
    # A first start's migrations and a whole launch: minutes on a loaded machine.
    screen = terminal.wait_for(lambda text: "EXIT=" in text, timeout=360)
    assert "EXIT=0" in screen, screen[-3000:]


def test_the_temporary_servers_port_is_the_commands_from_the_moment_it_is_chosen():
    """The socket the command passes its temporary server is bound and listening when
    chosen: a server starting elsewhere meanwhile (another command's, a test's) cannot
    take its port and answer the health check in its place, as it could a port merely
    chosen and released. (That the server serves on it, every test above shows.)"""
    from launchops.cli.prefect_server import listening_socket

    with listening_socket() as sock:
        host, port = sock.getsockname()
        with socket.socket() as other, pytest.raises(OSError):
            other.bind((host, port))
        with socket.create_connection((host, port), timeout=5):
            pass  # connections wait in its backlog until the server takes them
