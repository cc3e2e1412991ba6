"""An open Prefect API: `launchops check` and `launchops deploy` refuse to put a Prefect-held
key or a public profile's deployments behind a server that answers anonymous requests on
an address other than loopback (one line, exit 2; `--insecure-server` goes on, loudly),
and `check` flags a keypair file others can read.

The "server" is a tiny HTTP server bound on 0.0.0.0, reached through this machine's own
non-loopback address: nothing leaves the machine."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from solders.keypair import Keypair

from launchops.exposure import Exposure, is_loopback, probe
from launchops.readiness import check_prefect
from launchops.sandbox.process import free_port
from tests.support import forks

ROOT = Path(__file__).resolve().parents[2]


def test_loopback_is_localhost_127_8_and_ipv6_one_only():
    for host in ("localhost", "LOCALHOST.", "127.0.0.1", "127.3.2.1", "::1", "[::1]"):
        assert is_loopback(host, lambda _: []), host
    for host in ("0.0.0.0", "192.0.2.2", "10.0.0.1", "fd00::2", "[fe80::1%eth0]"):
        assert not is_loopback(host, lambda _: []), host


def test_a_name_is_loopback_only_when_every_address_it_resolves_to_is():
    assert is_loopback("prefect.internal", lambda _: ["127.0.0.1", "::1"])
    assert not is_loopback("prefect.internal", lambda _: ["127.0.0.1", "192.0.2.7"])
    assert not is_loopback("prefect.internal", lambda _: [])  # does not resolve


def test_no_prefect_api_url_is_the_temporary_server_on_this_machine():
    exposure = probe(None)
    assert exposure.loopback and not exposure.open
    assert check_prefect(exposure).ok


def test_the_prefect_finding_says_what_to_set_on_an_open_server():
    found = check_prefect(Exposure("http://192.0.2.9:4200/api", loopback=False, anonymous=True))
    assert not found.ok and "PREFECT_SERVER_API_AUTH_STRING" in found.detail
    closed = Exposure("http://192.0.2.9:4200/api", loopback=False, anonymous=False)
    assert check_prefect(closed).ok and "put TLS in front" in check_prefect(closed).detail
    local = Exposure("http://127.0.0.1:4200/api", loopback=True, anonymous=True)
    assert check_prefect(local).ok
    unknown = Exposure("http://192.0.2.9:4200/api", False, None, "cannot reach it")
    assert not check_prefect(unknown).ok


class FakeApi(BaseHTTPRequestHandler):
    """A Prefect API's /admin/version: open, or asking for basic auth."""

    auth: ClassVar[bool] = False
    seen: ClassVar[list[str | None]] = []  # the Authorization header of every request

    def do_GET(self) -> None:
        FakeApi.seen.append(self.headers.get("Authorization"))
        refused = FakeApi.auth and self.headers.get("Authorization") is None
        body = json.dumps({"exception_message": "Unauthorized"} if refused else "3.8.8")
        self.send_response(401 if refused else 200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        return None


def own_address() -> str | None:
    """This machine's own non-loopback IPv4 address, if it has one."""
    try:
        found = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None)}
    except OSError:
        found = set()
    found |= set(subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split())
    usable = sorted(a for a in found if ":" not in a and not is_loopback(a, lambda _: []))
    return usable[0] if usable else None


@pytest.fixture
def api() -> Iterator[str]:
    address = own_address()
    if address is None:
        pytest.skip("this machine has no non-loopback address")
    server = ThreadingHTTPServer(("0.0.0.0", 0), FakeApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    FakeApi.auth, FakeApi.seen = False, []
    try:
        yield f"http://{address}:{server.server_port}/api"
    finally:
        server.shutdown()
        server.server_close()


def launchops(tmp_path: Path, api_url: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    port = free_port()  # a port nothing listens on: the sandbox is not asked
    environ = {
        **os.environ,
        "PREFECT_API_URL": api_url,
        "PREFECT_API_AUTH_STRING": "user:pass",  # must never be sent by the probe
        "LAUNCHOPS_HOME": str(tmp_path / "home"),
        "LAUNCHOPS_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "LAUNCHOPS_RPC_URL": f"http://127.0.0.1:{port}",
        "LAUNCHOPS_EMBEDDED_SANDBOX": "false",
        **env,
    }
    command = [sys.executable, "-m", "launchops.cli", *args]
    return forks.run(command, capture_output=True, text=True, env=environ, cwd=ROOT)


def refused_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_probe_finds_an_open_server_on_this_machines_address_without_sending_credentials(api):
    exposure = probe(api)
    assert exposure.open and not exposure.loopback
    FakeApi.auth = True
    assert not probe(api).open and probe(api).anonymous is False
    assert FakeApi.seen and set(FakeApi.seen) == {None}


def test_check_refuses_a_prefect_secret_key_behind_an_open_server(api, tmp_path):
    done = launchops(tmp_path, api, "check", LAUNCHOPS_KEYPAIR="prefect-secret:launch-creator")
    line = refused_line(done)
    assert "answers anonymous requests" in line and "'launch-creator'" in line
    assert "PREFECT_SERVER_API_AUTH_STRING" in line and "PREFECT_API_AUTH_STRING here" in line
    assert "--insecure-server" in line and set(FakeApi.seen) == {None}


def test_check_goes_on_loudly_with_insecure_server(api, tmp_path):
    secret = {"LAUNCHOPS_KEYPAIR": "prefect-secret:launch-creator"}
    done = launchops(tmp_path, api, "check", "--insecure-server", "--json", **secret)
    assert done.returncode == 1, done.stderr  # it checked, and found things to fix
    assert "WARNING: --insecure-server" in done.stderr and "ANYONE" in done.stderr
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    assert not checks["prefect"]["ok"] and "anonymous" in checks["prefect"]["detail"]


def test_check_and_deploy_accept_a_server_that_asks_for_auth(api, tmp_path):
    FakeApi.auth = True
    secret = {"LAUNCHOPS_KEYPAIR": "prefect-secret:launch-creator"}
    done = launchops(tmp_path, api, "check", "--json", **secret)
    assert done.returncode == 1 and "error:" not in done.stderr, done.stderr  # no refusal
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["prefect"]["ok"] and "asks for auth" in checks["prefect"]["detail"]
    # The key is asked of that API (this fake one answers no block), in one line
    key = checks["key"]["detail"]
    assert "did not give the Secret block" in key and "Traceback" not in done.stderr, key
    # as a table: the text as it is (`:x:` is not an emoji's name to the terminal)
    table = launchops(tmp_path, api, "check", LAUNCHOPS_KEYPAIR="prefect-secret:x").stdout
    assert "keypair prefect-secret:x: the Prefect API" in table, table


def test_deploy_refuses_a_public_profile_on_an_open_server(api, tmp_path):
    for profile in ("devnet", "mainnet"):
        done = launchops(tmp_path, api, "deploy", "--pool", "launchops", "--profile", profile)
        line = refused_line(done)
        assert f"profile {profile}'s deployments" in line and "--insecure-server" in line


def test_deploy_refuses_a_prefect_secret_key_on_an_open_server(api, tmp_path):
    secret = {"LAUNCHOPS_KEYPAIR": "prefect-secret:launch-creator"}
    done = launchops(tmp_path, api, "deploy", "--pool", "launchops", **secret)
    assert "Secret block 'launch-creator'" in refused_line(done)


def test_check_flags_a_keypair_file_others_can_read(tmp_path):
    key_file = tmp_path / "id.json"
    key_file.write_text(json.dumps(list(bytes(Keypair()))))
    key_file.chmod(0o644)
    done = launchops(tmp_path, "", "check", "--json", LAUNCHOPS_KEYPAIR=f"file:{key_file}")
    assert done.returncode == 1, done.stderr
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    assert not checks["key"]["ok"] and f"chmod 600 {key_file}" in checks["key"]["detail"]
    key_file.chmod(0o600)
    done = launchops(tmp_path, "", "check", "--json", LAUNCHOPS_KEYPAIR=f"file:{key_file}")
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    assert "chmod" not in checks["key"]["detail"]
