"""How launchops shows a URL: without what authenticates it.

RPC providers put their key in the URL: in the query (`?api-key=`), or as a segment of
the path (a UUID or a long token); a Prefect, service or PostgreSQL URL may carry a user
and password. Every URL launchops prints, logs or puts in an error goes through `shown`,
which keeps what tells one endpoint from another (the scheme, the host, the port, the
path's plain segments, the query's names) and puts `***` where a secret can be:

    >>> shown("https://rpc.example.com/?api-key=4f1c2d")
    'https://rpc.example.com/?api-key=***'
    >>> shown("https://user:pass@node.example.com:8899/v2/0b9e1f3c4d5a6b7c8d9e")
    'https://***@node.example.com:8899/v2/***'
    >>> shown("http://127.0.0.1:8899/v1")
    'http://127.0.0.1:8899/v1'

The URL itself is used as given; only what is shown of it is redacted.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
# A path segment that reads as a key: long, of URL-safe characters, with letters and digits
# (a UUID, QuickNode's 40 hex digits, Alchemy's 32 characters); `v1`, `bundles` or
# `mainnet-beta` are not.
_TOKEN = re.compile(r"[A-Za-z0-9_.~%-]{16,}")


def _secret(segment: str) -> bool:
    return (
        _TOKEN.fullmatch(segment) is not None
        and any(c.isdigit() for c in segment)
        and any(c.isalpha() for c in segment)
    )


def _query(query: str) -> str:
    items = (part.split("=", 1) for part in query.split("&") if part)
    return "&".join(f"{item[0]}={MASK}" if len(item) == 2 else MASK for item in items)


def shown(url: str, *, path_keys: bool = True) -> str:
    """`url` as launchops shows it: its user and password, its query's values, its
    fragment and any path segment that reads as a key replaced by `***` (not the path's,
    with `path_keys=False`: a request's URL, whose path names the service's resources)."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
    except ValueError:
        return MASK  # not a URL to take apart: show none of it
    netloc = f"{MASK}@{host}" if "@" in parts.netloc else host
    segments = parts.path.split("/")
    path = "/".join(MASK if path_keys and _secret(s) else s for s in segments)
    fragment = MASK if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, path, _query(parts.query), fragment))


def joined(url: str, path: str) -> str:
    """`url` with `path` added to its path, its query kept where it belongs: a block
    engine's `?uuid=` stays after `/bundles`, not before it."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + path.lstrip("/")))


def scrubbed(text: str, url: str) -> str:
    """`text` (another library's message, which may quote the URL it was given) with
    `url` in it shown as `shown` shows it."""
    return text.replace(url, shown(url)) if url else text
