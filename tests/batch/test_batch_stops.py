"""A batch stopped by a signal, as a user's supervisor, CI or shell sends it: SIGINT to a
command with no terminal that inherited SIGINT ignored (a shell's background job), and
SIGTERM through Prefect with the command's own temporary server. Each time: no launch
starts after the signal, the command ends with the signal's exit code and one line (what
was stopped, what was in flight, the command that continues it), no traceback, its report
written, nothing of it left running; the same command again registers every launch once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from launchops.cli.stops import BOUND_SECONDS
from tests.batch.test_batch import folder_of
from tests.support import forks, prefect_db
from tests.support.pipeline import ROOT, launchops, profile_env, stats

FILES = 5


def _ignore_sigint() -> None:
    """What a non-interactive shell does to a job it starts in the background."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stopped_after_first(process, sandbox, signum: int) -> tuple[str, float, set[int]]:
    """Send `signum` once the batch's first launch registered; its stderr, how long the
    command took to end after the signal, and the processes it had started by then."""
    deadline = time.monotonic() + 120
    while stats(sandbox)["launches"]["registered"] < 1:
        assert process.poll() is None, process.communicate()[1][-2000:]
        assert time.monotonic() < deadline, "no launch registered in 120 s"
        time.sleep(0.05)
    children = _children(process.pid)
    sent = time.monotonic()
    process.send_signal(signum)
    _, err = process.communicate(timeout=90)
    return err, time.monotonic() - sent, children


def _stop_line(err: str, signame: str, command: str, took: float) -> str:
    """The command's one line after the signal, which came `took` seconds before its end."""
    assert "Traceback" not in err, err[-3000:]
    [line] = [line for line in err.splitlines() if line.startswith(f"stopped by {signame}")]
    assert line.endswith(f"to continue, run the same command again: {command}"), line
    assert "not started: " in line and "left without waiting" not in line, line
    assert took < BOUND_SECONDS, took
    return line


def _report_of_last_run(home: Path) -> dict:
    [report] = sorted((home / "sandbox" / "reports").glob("batch-*.json"))
    return json.loads(report.read_text())


def _children(pid: int) -> set[int]:
    """Every live process under `pid` (zombies aside), from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def test_sigint_with_no_terminal_stops_a_batch_that_the_same_command_finishes(
    sandbox_factory, tmp_path
):
    sandbox = sandbox_factory(slot_ms=100)
    home = tmp_path / "home"
    env = profile_env(sandbox, home, LAUNCHOPS_CONCURRENCY="1")
    folder = folder_of(tmp_path, FILES)
    args = ["batch", str(folder), "--no-prefect"]
    process = forks.popen(  # a new process: the fork server's children take no preexec_fn
        [sys.executable, "-m", "launchops.cli", *args],
        fresh=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        preexec_fn=_ignore_sigint,
    )
    err, took, _ = _stopped_after_first(process, sandbox, signal.SIGINT)
    assert process.returncode == 130, err[-3000:]
    _stop_line(err, "SIGINT", "launchops " + " ".join(args), took)
    created = stats(sandbox)["launches"]["created"]
    assert created < FILES, f"{created} created after the stop"
    report = _report_of_last_run(home)
    assert len(report["launches"]) == FILES
    assert report["counts"].get("unfinished", 0) >= 1, report["counts"]

    again = launchops(env, *args, "--json")
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads(again.stdout)["counts"] == {"registered": FILES}
    counts = stats(sandbox)["launches"]
    assert counts["registered"] == FILES and counts["mintsOnChain"] == FILES, counts


@pytest.mark.prefect
def test_sigterm_stops_a_prefect_batch_and_its_server(sandbox_factory, tmp_path):
    """Through Prefect, with no PREFECT_API_URL (the session's server is not used): the
    command's own temporary server (on a Prefect home whose database is already made)
    goes with it."""
    sandbox = sandbox_factory(slot_ms=100)
    home, prefect_home = tmp_path / "home", tmp_path / "prefect"
    prefect_db.seed_home(prefect_home)
    env = profile_env(
        sandbox,
        home,
        LAUNCHOPS_CONCURRENCY="1",
        PREFECT_HOME=str(prefect_home),
        LAUNCHOPS_PREFECT_SERVER="temporary",  # a server of its own, to go with it
    )
    env.pop("PREFECT_API_URL", None)
    folder = folder_of(tmp_path, FILES)
    args = ["batch", str(folder)]
    process = forks.popen(
        [sys.executable, "-m", "launchops.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    err, took, children = _stopped_after_first(process, sandbox, signal.SIGTERM)
    assert process.returncode == 143, err[-3000:]
    assert children, "no temporary Prefect server seen"
    assert _alive(children) == set(), "a process of the command outlived it"
    _stop_line(err, "SIGTERM", "launchops " + " ".join(args), took)
    assert stats(sandbox)["launches"]["created"] < FILES
    report = _report_of_last_run(home)
    assert len(report["launches"]) == FILES

    # What the Prefect run left, continued from the journal (without a second temporary
    # server: the journal, not the driver, decides what is left; the same command again
    # is the other test's).
    again = launchops(env, *args, "--no-prefect", "--json")
    assert again.returncode == 0, again.stderr[-3000:]
    assert json.loads(again.stdout)["counts"] == {"registered": FILES}
    counts = stats(sandbox)["launches"]
    assert counts["registered"] == FILES and counts["mintsOnChain"] == FILES, counts
