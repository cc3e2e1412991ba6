"""The ways the real service's front fails, for the `/v1` API, answered on demand.

A fault is named, and given for every endpoint (`cdn_challenge`) or one
(`lost_answer@POST /v1/launches/create`, the endpoint spelled as `fail_next` spells it),
at a rate (`api_faults`) or for the next N calls (`api_fault_next`); each one served is
counted in the stats as `refused["METHOD /path NAME"]`.

  name            what the caller gets
  ──────────────  ─────────────────────────────────────────────────────────────────────
  cdn_challenge   HTTP 200, `text/html; charset=UTF-8`: Cloudflare's "Just a moment..."
                  browser check ("Checking your browser before accessing ..."); nothing run
  http_502_html   nginx's own 502 Bad Gateway page (`text/html`); nothing run
  http_503_html   nginx's own 503 Service Temporarily Unavailable page; nothing run
  blackhole       the connection is taken; nothing is run or answered until the caller
                  gives up (at most 600 s, then 504)
  lost_answer     the call runs (a create is built and kept, a register registers); its
                  answer never comes, as blackhole

Every page has CRLF line ends, as nginx and Cloudflare write them.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import Response

from launchops.sandbox import outages

PAGES = frozenset({"cdn_challenge", "http_502_html", "http_503_html"})
OUTAGES = frozenset({"blackhole", "lost_answer"})
NAMES = PAGES | OUTAGES
ENDPOINT = re.compile(r"(GET|POST|PUT|PATCH|DELETE) /v1/\S*")


def check_names(faults: dict[str, Any]) -> dict[str, Any]:
    """`name` or `name@METHOD /v1/path` keys, each name known (pydantic validator)."""
    for key in faults:
        name, at, endpoint = key.partition("@")
        if name not in NAMES:
            raise ValueError(f"unknown API fault {name!r}; known: {', '.join(sorted(NAMES))}")
        if at and not ENDPOINT.fullmatch(endpoint):
            raise ValueError(
                f"{key}: the endpoint is spelled METHOD /v1/path, "
                "e.g. 'lost_answer@POST /v1/launches/create'"
            )
    return faults


def page(name: str, host: str, ray: str) -> Response:
    """The answer of page fault `name` (one of PAGES) to a request for `host`."""
    if name == "cdn_challenge":
        return outages.cdn_challenge_response(host, ray)
    return outages.nginx_response(502 if name == "http_502_html" else 503)


__all__ = ["NAMES", "OUTAGES", "PAGES", "check_names", "page"]
