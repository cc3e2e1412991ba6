"""The rule: a key in a URL (its user and password, a query's value, a token in its path)
is never in what launchops shows of it, and what tells endpoints apart stays. Drawn at
random: a secret anywhere a provider puts one, around any host, port and plain path."""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from launchops.config.profiles import BUILT_IN
from launchops.urls import joined, scrubbed, shown

SAFE = string.ascii_letters + string.digits + "-._~"
secrets = st.text(SAFE, min_size=4, max_size=48)  # a password, an API key: any text
path_keys = st.text(string.ascii_letters + string.digits + "-_", min_size=16, max_size=64).filter(
    lambda s: any(c.isdigit() for c in s) and any(c.isalpha() for c in s)
)
hosts = st.sampled_from(
    ["127.0.0.1", "[::1]", "node.example.com", "mainnet.helius-rpc.com", "x.quiknode.pro"]
)
ports = st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}"))
plain_paths = st.lists(st.sampled_from(["v1", "v2", "api", "bundles", "rpc", ""]), max_size=3)
where = st.sampled_from(["user", "password", "query", "bare query", "path", "fragment"])


@given(
    data=st.data(),
    place=where,
    host=hosts,
    port=ports,
    scheme=st.sampled_from(["http", "https", "ws", "wss"]),
    path=plain_paths,
)
def test_a_secret_anywhere_in_a_url_is_never_shown(data, place, host, port, scheme, path):
    # in the path, a key is a segment that reads as one; anywhere else, any text is
    secret = data.draw(path_keys if place == "path" else secrets, label="secret")
    base_path = "/".join(["", *path]) + (f"/{secret}" if place == "path" else "")
    userinfo = {"user": f"{secret}@", "password": f"ops:{secret}@"}.get(place, "")
    query = {"query": f"?cluster=main&api-key={secret}", "bare query": f"?{secret}"}
    url = f"{scheme}://{userinfo}{host}{port}{base_path}{query.get(place, '')}"
    url += f"#{secret}" if place == "fragment" else ""
    assume(url.count(secret) == 1)  # not also a plain part of the URL (a host, `api-key`)

    seen = shown(url)
    assert secret not in seen, (url, seen)
    assert seen.startswith(f"{scheme}://"), seen
    assert f"{host}{port}" in seen, seen
    assert "***" in seen
    message = f"RPC call failed: POST {url}: ConnectError"
    assert secret not in scrubbed(message, url)


@given(host=hosts, port=ports, path=plain_paths)
def test_a_url_without_a_secret_is_shown_as_it_is(host, port, path):
    url = f"https://{host}{port}{'/'.join(['', *path])}"
    assert shown(url) == url


@pytest.mark.parametrize("profile", sorted(BUILT_IN))
def test_the_built_in_profiles_urls_are_shown_whole(profile):
    for field in ("base_url", "rpc_url"):
        assert shown(BUILT_IN[profile][field]) == BUILT_IN[profile][field]


def test_a_request_url_keeps_its_path_and_hides_its_query():
    url = "https://ops:pw@api.example.com/v1/launches/3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f?k=v"
    assert (
        shown(url, path_keys=False)
        == "https://***@api.example.com/v1/launches/3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f?k=***"
    )


def test_what_is_not_a_url_is_not_shown():
    assert shown("http://[no-end/?api-key=abc123") == "***"


@pytest.mark.parametrize(
    ("url", "path", "expected"),
    [
        (
            "https://be.example/api/v1?uuid=k1",
            "bundles",
            "https://be.example/api/v1/bundles?uuid=k1",
        ),
        ("https://be.example/api/v1/", "bundles", "https://be.example/api/v1/bundles"),
        ("http://127.0.0.1:8899/?api-key=k2", "api/v1", "http://127.0.0.1:8899/api/v1?api-key=k2"),
        ("http://127.0.0.1:8899", "api/v1", "http://127.0.0.1:8899/api/v1"),
    ],
)
def test_a_path_joins_before_the_query(url, path, expected):
    """A block engine's `?uuid=`, or a sandbox RPC URL's key, stays after the path: it was
    appended after the query, and every bundle went to the RPC's root instead."""
    assert joined(url, path) == expected


def test_a_sandbox_block_engine_keeps_the_rpc_urls_query():
    from launchops.config.landing import Landing

    engine = Landing(mode="bundle").engine_url("http://127.0.0.1:8899/?api-key=k3", True)
    assert engine == "http://127.0.0.1:8899/api/v1?api-key=k3"
