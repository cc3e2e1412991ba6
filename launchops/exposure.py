"""Whether the Prefect API launchops talks to is open to anyone who reaches it.

A Prefect server started without `PREFECT_SERVER_API_AUTH_STRING` answers every request:
whoever reaches its port reads Secret blocks with their values (a `prefect-secret:` key)
and runs any deployment (a mainnet batch). `launchops check` and `launchops deploy` ask
here before they lean on such a server: an anonymous request (no Authorization header)
answered 2xx means open, 401 means basic auth is on. A server on a loopback address
(127.0.0.0/8, ::1, localhost; no PREFECT_API_URL at all means Prefect's temporary local
server) is reachable from this machine only, and is not refused.

No Prefect import here: plain httpx, so the check costs one request.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

import launchops.web as web
from launchops.urls import shown

Resolve = Callable[[str], list[str]]
# A GET that any Prefect 3 server answers, and that basic auth guards (/health is left
# open on purpose, for probes, so it tells nothing).
PROBE_PATH = "/admin/version"
OVERRIDE = "--insecure-server"


def resolve(host: str) -> list[str]:
    """Every address `host` resolves to (an empty list when it does not resolve)."""
    try:
        return sorted({info[4][0] for info in socket.getaddrinfo(host, None)})
    except (OSError, UnicodeError):
        return []


def is_loopback(host: str, resolver: Resolve = resolve) -> bool:
    """Whether `host` reaches this machine only: localhost, 127.0.0.0/8, ::1, or a name
    that resolves to loopback addresses only. A name that does not resolve is not."""
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        pass
    found = resolver(host)
    return bool(found) and all(is_loopback(address, lambda _: []) for address in found)


@dataclass(frozen=True)
class Exposure:
    """What was found about the Prefect API at `url` (None: Prefect's temporary server)."""

    url: str | None
    loopback: bool
    anonymous: bool | None  # answers without credentials; None: could not tell
    detail: str = ""  # why it could not tell

    @property
    def open(self) -> bool:
        """Reachable from other machines and answering anyone: refused without override."""
        return not self.loopback and self.anonymous is True

    @property
    def plain_http(self) -> bool:
        return bool(self.url) and not self.loopback and self.url.startswith("http://")

    @property
    def shown(self) -> str:
        """The API's URL as printed: no user, password or query value."""
        return shown(self.url or "")

    def describe(self) -> str:
        """One line for `launchops check`: where the API is and whether it asks for auth."""
        if self.url is None:
            return "no PREFECT_API_URL: Prefect's temporary server on this machine"
        if self.anonymous is None:
            return f"{self.shown}: cannot tell whether it asks for auth ({self.detail})"
        where = "loopback" if self.loopback else "reachable from other machines"
        if not self.anonymous:
            clear = ": plain http, put TLS in front" if self.plain_http else ""
            return f"{self.shown} asks for auth ({where}{clear})"
        return f"{self.shown} answers anonymous requests ({where})"


def probe(url: str | None, *, resolver: Resolve = resolve, timeout: float = 5.0) -> Exposure:
    """Ask the API at `url` one anonymous question; never sends a credential."""
    if not url:
        return Exposure(None, loopback=True, anonymous=None, detail="temporary server")
    host = urlsplit(url).hostname or ""
    loopback = is_loopback(host, resolver)
    try:
        answer = web.get(url.rstrip("/") + PROBE_PATH, timeout=timeout)
    except httpx.HTTPError as exc:
        return Exposure(url, loopback, None, f"cannot reach it: {type(exc).__name__}")
    if answer.status_code in (401, 403):
        return Exposure(url, loopback, anonymous=False)
    if answer.is_success:
        return Exposure(url, loopback, anonymous=True)
    return Exposure(url, loopback, None, f"it answered {answer.status_code}")


def refusal(exposure: Exposure, what: str) -> str:
    """The one line a command refused on an open server prints; `what` is what it would
    have exposed (a Prefect-held key, a public profile's deployments)."""
    return (
        f"the Prefect API {exposure.shown} answers anonymous requests and is not on loopback: "
        f"{what} would be open to anyone who reaches it. Set PREFECT_SERVER_API_AUTH_STRING "
        f"on the server and PREFECT_API_AUTH_STRING here (see docs/several-machines.md, "
        f"Running on several machines), or pass {OVERRIDE}"
    )


def override_warning(exposure: Exposure, what: str) -> str:
    """The warning a command prints when `--insecure-server` makes it go on against an
    open server; `what` as for `refusal`."""
    return (
        f"WARNING: {OVERRIDE}: the Prefect API {exposure.shown} answers ANYONE who reaches it; "
        f"{what} is open to them (they can read Secret blocks and run deployments)"
    )


__all__ = [
    "OVERRIDE",
    "Exposure",
    "is_loopback",
    "override_warning",
    "probe",
    "refusal",
    "resolve",
]
