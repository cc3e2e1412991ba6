"""A Prefect server on PostgreSQL and process workers, as an ops team runs them: real
`prefect server start` and `prefect worker start` processes, each in its own session so
a test can stop (or kill) it with everything it started."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import launchops.web as web
from launchops.cli.common import PREFECT_SERVER_SETTINGS
from launchops.sandbox.process import free_port
from tests.support import forks, prefect_db, session_server
from tests.support.pipeline import set_faults

PREFECT = [sys.executable, "-m", "prefect"]


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children first found), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def stacks(pid: int) -> str:
    """Where process `pid` waits (`py-spy dump`; empty without py-spy); for a shim of the
    suite's fork server (tests/support/shim.py, waiting on its command), the command's
    stacks too: the forked process is the fork server's child, not the shim's (its pid
    is a local of the shim's wait)."""
    if not shutil.which("py-spy"):
        return ""
    dump = _dump(pid, "--locals")
    forked = re.search(r"status_of \(.*?\n(?:\s+.*\n)*?\s+pid: (\d+)", dump)
    if forked is None:
        return _dump(pid)
    return f"{_dump(pid)}\nits command, forked:\n{_dump(int(forked.group(1)))}"


def _dump(pid: int, *options: str) -> str:
    command = ["py-spy", "dump", *options, "--pid", str(pid)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60).stdout


def kill_tree(process: forks.Popen | subprocess.Popen[Any], sig: int = signal.SIGKILL) -> None:
    """`sig` to the process's session and to everything below it (a machine dying)."""
    below = descendants(process.pid)
    for pid in [process.pid, *below]:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(os.getpgid(pid), sig)
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def stop(process: forks.Popen | subprocess.Popen[Any], grace: float = 10.0) -> None:
    """SIGTERM, then SIGKILL whatever is left after the grace period."""
    if process.poll() is None:
        below = descendants(process.pid)
        # A forked command's end reaches its status line a moment after the fork server has
        # reaped it: poll() may still say running of a group that is gone.
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
        for pid in below:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    kill_tree(process)
    process.wait(timeout=30)


class PrefectServer:
    """`prefect server start` on its own PostgreSQL database and port (`port`: the port of
    a server stopped before, to start it again as it was); with `auth` ("user:password",
    PREFECT_SERVER_API_AUTH_STRING), every request but /health must carry it, as README
    sets a server up. Its database is a copy of the session's migrated one
    (tests/support/prefect_db.py), block types and all."""

    def __init__(
        self,
        home: Path,
        database_name: str,
        auth: str | None = None,
        port: int | None = None,
        **settings: str,
    ) -> None:
        self.auth = auth
        self.headers = (
            {"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()} if auth else {}
        )
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/api"
        self.env = {
            **os.environ,
            "PREFECT_HOME": str(home),
            "PREFECT_API_DATABASE_CONNECTION_URL": (
                f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database_name}"
            ),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PREFECT_UI_API_URL": self.url,  # the UI's pages call the API here
            **PREFECT_SERVER_SETTINGS,
            **prefect_db.TEMPLATE_SERVER,
            **({"PREFECT_SERVER_API_AUTH_STRING": auth} if auth else {}),
            **settings,
        }
        self.log = home / "server.log"
        home.mkdir(parents=True, exist_ok=True)
        self.process = forks.popen(
            [*PREFECT, "server", "start", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self.env,
            stdout=self.log.open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        session_server.wait_started(self.process, self.url, self.log, timeout=120)

    def client_env(self, home: Path) -> dict[str, str]:
        """What a client process (a worker, the CLI) needs to talk to this server."""
        return {
            "PREFECT_API_URL": self.url,
            "PREFECT_HOME": str(home),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            "PREFECT_LOGGING_LEVEL": "WARNING",
            **({"PREFECT_API_AUTH_STRING": self.auth} if self.auth else {}),
        }

    def api(self, method: str, path: str, **kw: Any) -> Any:
        """A request to the API, with the auth string when the server asks for one."""
        kw.setdefault("headers", self.headers)
        answer = web.request(method, f"{self.url}{path}", timeout=30, **kw)
        answer.raise_for_status()
        return answer.json() if answer.content else None

    def stop(self) -> None:
        stop(self.process)


def batch_report(
    api: str, run_id: str, folders: list[Path], headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """The JSON report of the batch flow run `run_id` (on the Prefect API at `api`), in
    whichever of the report `folders` it was written: the one its report artifact names
    and tabulates. Not the newest: another run of the deployment may end meanwhile (its
    hourly schedule fires at the top of the hour) and write its own."""
    wanted = {"key": {"any_": ["batch-report"]}, "flow_run_id": {"any_": [run_id]}}
    body = {"artifacts": wanted, "sort": "CREATED_DESC"}  # a run retried: its last report
    answer = web.post(f"{api}/artifacts/filter", json=body, headers=headers or {}, timeout=30)
    artifact, *_ = answer.raise_for_status().json()
    stem = artifact["description"].split("**")[1].split()[-1]  # "**batch batch-<when>**"
    rows = json.loads(artifact["data"]) if isinstance(artifact["data"], str) else artifact["data"]
    table = Counter((row["launch"], row["worker"]) for row in rows)
    paths = [folder / f"{stem}.json" for folder in folders if (folder / f"{stem}.json").exists()]
    found = [json.loads(path.read_text()) for path in paths]
    mine = [r for r in found if Counter((x["key"], x["worker"]) for x in r["launches"]) == table]
    assert len(mine) == 1, (stem, artifact["description"], paths)
    return mine[0]


def flow_run_id(output: str) -> str:
    """The flow run id `prefect deployment run` printed."""
    return next(line.split()[-1] for line in output.splitlines() if "UUID" in line)


class Worker:
    """`prefect worker start --pool POOL --type process --limit 1`, its flow runs in its
    own LAUNCHOPS_HOME."""

    def __init__(self, name: str, pool: str, env: dict[str, str], log: Path) -> None:
        self.name = name
        self.env = env
        self.log = log
        self.pool = pool
        self.process = self._start()

    def _start(self) -> forks.Popen | subprocess.Popen[Any]:
        command = [*PREFECT, "worker", "start", "--pool", self.pool, "--type", "process"]
        return forks.popen(
            [*command, "--limit", "1", "--name", self.name],
            env=self.env,
            stdout=self.log.open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def restart(self) -> None:
        self.process = self._start()

    def kill(self) -> None:
        kill_tree(self.process)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        stop(self.process)


class Hook(BaseHTTPRequestHandler):
    """A webhook: keeps every JSON body POSTed to it."""

    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Hook.received.append(json.loads(body or b"{}"))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return None


def airdrop(sandbox: Any, key: Any) -> None:
    """1000 SOL to `key` on the sandbox, two slots on."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "requestAirdrop"}
    body["params"] = [str(key.pubkey()), 1000 * 10**9]
    web.post(sandbox.rpc_url, json=body).raise_for_status()
    web.post(f"{sandbox.url}/_sandbox/advance", params={"slots": 2}).raise_for_status()


def slowed_until(
    sandbox: Any, reached: Callable[[], bool], what: str, *, latency_ms: int, within: float
) -> None:
    """Every sandbox answer `latency_ms` slower until `reached()` (polled), then at full
    speed again; fails naming `what` when not reached `within` seconds. A batch that must
    still hold launches when a late part's process starts (over a minute on a loaded
    machine, seen) is kept that long, whatever the machine's load, not by chance."""
    set_faults(sandbox, latency_ms=latency_ms)
    try:
        deadline = time.monotonic() + within
        while not reached():
            assert time.monotonic() < deadline, f"not within {within:g} s: {what}"
            time.sleep(0.5)
    finally:
        set_faults(sandbox, latency_ms=0)


@contextmanager
def _browser(auth: str | None) -> Iterator[Any]:
    """Headless Chromium driven over its DevTools protocol (None when it is not installed).
    With `auth`, every page finds the basic-auth string where the Prefect UI's login
    prompt keeps it once a person typed it (localStorage `prefect-password`)."""
    import shutil
    import tempfile

    from websockets.sync.client import connect

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        yield None
        return
    with tempfile.TemporaryDirectory() as profile:
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic"]
        flags += ["--no-first-run", "--disable-background-networking", "--disable-sync"]
        flags += ["--disable-component-update", "--window-size=1440,1000"]
        process = subprocess.Popen(
            [browser, *flags, "--remote-debugging-port=0", f"--user-data-dir={profile}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + 60
            while not port_file.exists() or not port_file.read_text().strip():
                assert time.monotonic() < deadline and process.poll() is None, "no Chromium"
                time.sleep(0.2)
            port = port_file.read_text().split()[0]
            pages = web.get(f"http://127.0.0.1:{port}/json/list", timeout=10).json()
            target = next(p for p in pages if p["type"] == "page")
            with connect(target["webSocketDebuggerUrl"], max_size=None) as socket_:
                page = _Page(socket_)
                page.call("Page.enable")
                if auth:
                    token = base64.b64encode(auth.encode()).decode()
                    script = f"localStorage.setItem('prefect-password', '{token}')"
                    page.call("Page.addScriptToEvaluateOnNewDocument", source=script)
                yield page
        finally:
            stop(process, grace=5)


class _Page:
    """One tab: navigate, wait for some text, read the DOM, take a screenshot."""

    def __init__(self, socket_: Any) -> None:
        self.socket, self.ids = socket_, 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.ids += 1
        self.socket.send(json.dumps({"id": self.ids, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=60))
            if message.get("id") == self.ids:
                assert "error" not in message, message
                return message["result"]

    def open(self, url: str, shown: str, wait_ms: int) -> str:
        """The page's DOM once `shown` is in its text (or after `wait_ms`)."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            text = self.dom()
            if shown in text or time.monotonic() > deadline:
                return text
            time.sleep(0.5)

    def dom(self) -> str:
        found = self.call("Runtime.evaluate", expression="document.documentElement.outerHTML")
        return str(found["result"].get("value", ""))

    def screenshot(self, out: Path, settle_s: float = 10.0) -> Path:
        """The page once it stopped changing: the UI fades a page in (a screenshot taken
        at once is half dark), so shots are taken until two in a row are the same."""
        deadline = time.monotonic() + settle_s
        last = base64.b64decode(self.call("Page.captureScreenshot")["data"])
        while time.monotonic() < deadline:
            time.sleep(0.4)
            shot = base64.b64decode(self.call("Page.captureScreenshot")["data"])
            if shot == last:
                break
            last = shot
        out.write_bytes(last)
        return out


def ui_page(
    url: str, shown: str, out: Path, *, auth: str | None = None, wait_ms: int = 30000
) -> str | None:
    """The page's DOM once `shown` appears (None when Chromium is absent), its screenshot
    kept in `out`; with `auth`, as a person who typed the basic-auth string sees it."""
    with _browser(auth) as page:
        if page is None:
            return None
        text = page.open(url, shown, wait_ms)
        page.screenshot(out)
        return text
