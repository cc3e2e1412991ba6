"""A README shell block run as a person types it: the block read from README.md at test
time and cut into its steps, and one bash a machine, fed one line at a time (what a line
exports stays for the next), each line's output in its own file and its exit code read
back; a long-running line (a server, a worker) goes to the background, as a person would
start it in another terminal."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

import launchops.web as web
from tests.support import docs
from tests.support.prefect_pool import descendants, kill_tree

ROOT = Path(__file__).resolve().parents[2]
LONG_RUNNING = re.compile(r"\bprefect (server|worker) start\b")


@dataclass(frozen=True)
class Line:
    """A command line of a block (continuations joined, its comment cut off), the exit
    code its comment names (`exit N`; 0 when none) and the comment itself."""

    command: str
    exits: int
    comment: str


def section(title: str) -> str:
    """The text of the docs' section `title` (README.md or a page of docs/)."""
    return docs.section(title)


def bash_block(title: str, holding: str = "") -> str:
    """The one ```bash block of README's `## title` that holds `holding`."""
    [block] = [b for b in re.findall(r"```bash\n(.*?)```", section(title), re.S) if holding in b]
    return block


def steps(block: str) -> dict[str, list[Line]]:
    """The block's command lines by step: a comment line `# N. ...` starts step N, a
    comment line `# a run by hand ...` the step "by hand"; lines before any are "setup"."""
    found: dict[str, list[Line]] = {"setup": []}
    step = "setup"
    for raw in block.replace("\\\n", " ").splitlines():
        line = raw.strip()
        heading = re.match(r"# (\d)\. ", raw) or re.match(r"# (a run by hand)", raw)
        if heading:
            step = "by hand" if heading.group(1).startswith("a run") else heading.group(1)
            found[step] = []
        if not line or line.startswith("#"):
            continue
        command, _, comment = line.partition("  #")
        exits = re.search(r"\bexit (\d)\b", comment)
        found[step].append(Line(command.strip(), int(exits.group(1)) if exits else 0, comment))
    return found


def fill(command: str, placeholders: dict[str, str]) -> str:
    for placeholder, value in placeholders.items():
        command = command.replace(placeholder, value)
    return command


@dataclass(frozen=True)
class Ran:
    command: str
    returncode: int
    output: str


class Shell:
    """One machine's terminal: a bash in its own session reading the lines it is given,
    one at a time, in `cwd` with `env` (the machine's environment)."""

    def __init__(self, name: str, env: dict[str, str], cwd: Path, logs: Path) -> None:
        self.name, self.logs, self.count = name, logs, 0
        logs.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"],
            stdin=subprocess.PIPE,
            stdout=(logs / f"{name}.shell.log").open("a"),
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self.ran: list[Ran] = []
        self.background: list[Path] = []

    def _type(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def _name(self) -> str:
        self.count += 1
        return str(self.logs / f"{self.name}-{self.count:02d}")

    def run(self, command: str, timeout: float = 300) -> Ran:
        """`command` in this shell (its own variables and exports stay), once it ended."""
        name = self._name()
        out, rc, partial = Path(f"{name}.out"), Path(f"{name}.rc"), f"{name}.partial"
        self._type(
            f"{{ {command}\n}} >{shlex.quote(str(out))} 2>&1 </dev/null; "
            f"echo $? >{shlex.quote(partial)}; mv {shlex.quote(partial)} {shlex.quote(str(rc))}"
        )
        deadline = time.monotonic() + timeout
        while not rc.exists():
            assert self.process.poll() is None, (self.name, command, "the shell ended")
            assert time.monotonic() < deadline, (self.name, command, out.read_text()[-3000:])
            time.sleep(0.1)
        ran = Ran(command, int(rc.read_text()), out.read_text())
        self.ran.append(ran)
        return ran

    def start(self, command: str) -> Path:
        """A long-running `command` in the background of this shell, as in a terminal of
        its own: Ctrl-C stops it (bash has a background job ignore SIGINT; the subshell
        gives the command the default back). Its output's file."""
        out = Path(f"{self._name()}.log")
        self._type(f"( trap - INT QUIT; {command}\n) >{shlex.quote(str(out))} 2>&1 </dev/null &")
        self.background.append(out)
        return out

    def outputs(self) -> dict[str, str]:
        """Everything this shell's lines printed, by line (background lines' logs too)."""
        found = {ran.command: ran.output for ran in self.ran}
        return found | {str(log): log.read_text() for log in self.background if log.exists()}

    def close(self, grace: float = 10.0) -> None:
        """The shell and everything it started, ended as a person ends them: Ctrl-C
        (SIGINT to the shell's session), SIGKILL to whatever is left after `grace`."""
        below = descendants(self.process.pid)
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGINT)
        deadline = time.monotonic() + grace
        while (left := [pid for pid in below if _alive(pid)]) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in left:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        kill_tree(self.process)
        self.process.wait(timeout=30)
        if self.process.stdin is not None:
            self.process.stdin.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_healthy(url: str, timeout: float = 120) -> None:
    """Until the Prefect API at `url` answers /health (which asks for no auth)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if web.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"no Prefect API at {url}"
        time.sleep(0.5)


def wait_online(
    url: str, pool: str, count: int, headers: dict[str, str], timeout: float = 120
) -> Any:
    """Until `count` workers of `pool` are ONLINE on the Prefect API at `url`; them."""
    deadline = time.monotonic() + timeout
    while True:
        answer = web.post(f"{url}/work_pools/{pool}/workers/filter", headers=headers, timeout=10)
        online = (
            [w for w in answer.json() if w.get("status") == "ONLINE"] if answer.is_success else []
        )
        if len(online) >= count:
            return online
        assert time.monotonic() < deadline, (answer.status_code, answer.text[-2000:])
        time.sleep(0.5)
