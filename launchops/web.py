"""One-off HTTP requests: a probe, an admin call, a wait for a server to answer.

`httpx.get` and its kin build a client a call, and a client loads the CA bundle (17 ms of
CPU on a 2-core machine) whether or not the URL uses TLS. On a plain `http://` URL (the
sandbox, a local Prefect server) there is nothing to verify, so these skip the load; an
`https://` URL keeps its verification. Redirects are not followed (httpx's default), so
nothing reaches an https URL unverified.
"""

from __future__ import annotations

from typing import Any

import httpx


def verify_for(url: str) -> bool:
    """Whether a request to `url` verifies TLS: always, unless the URL is plain http."""
    return not url.startswith("http://")


def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
    """`httpx.request`, without loading the CA bundle for a plain http:// URL."""
    kwargs.setdefault("verify", verify_for(url))
    return httpx.request(method, url, **kwargs)


def get(url: str, **kwargs: Any) -> httpx.Response:
    """`httpx.get`, without loading the CA bundle for a plain http:// URL."""
    return request("GET", url, **kwargs)


def post(url: str, **kwargs: Any) -> httpx.Response:
    """`httpx.post`, without loading the CA bundle for a plain http:// URL."""
    return request("POST", url, **kwargs)


def put(url: str, **kwargs: Any) -> httpx.Response:
    """`httpx.put`, without loading the CA bundle for a plain http:// URL."""
    return request("PUT", url, **kwargs)


def delete(url: str, **kwargs: Any) -> httpx.Response:
    """`httpx.delete`, without loading the CA bundle for a plain http:// URL."""
    return request("DELETE", url, **kwargs)


__all__ = ["delete", "get", "post", "put", "request", "verify_for"]
