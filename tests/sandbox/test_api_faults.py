"""The service's front fails as real ones do, on demand (`api_faults`, `api_fault_next`):
a CDN's browser check and nginx's error pages where JSON was expected, byte for byte; a
call taken and never answered (nothing run), and one run whose answer never comes (a
create built and kept all the same). Each for one endpoint or all, by rate or count,
counted in the stats."""

from __future__ import annotations

import httpx
import pytest

import launchops.web as web
from launchops.cli.sandbox import _faults
from tests.api import examples as ex
from tests.support.pipeline import set_faults, stats

CREATE = "POST /v1/launches/create"
AGENTS = "GET /v1/agents"


def _nginx(title: str) -> bytes:
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}"
        "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    ).encode()


def _created(sandbox) -> int:
    return stats(sandbox)["launches"]["created"]


def test_cdn_challenge_is_a_200_html_browser_check_for_its_endpoint_only(sandbox):
    before = stats(sandbox)["refused"].get(f"{AGENTS} cdn_challenge", 0)
    set_faults(sandbox, api_fault_next={f"cdn_challenge@{AGENTS}": 1})
    assert web.get(f"{sandbox.base_url}/agents/none").status_code == 404  # another one
    answer = web.get(f"{sandbox.base_url}/agents")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=UTF-8"
    assert answer.headers["server"] == "cloudflare" and answer.headers["cf-ray"]
    text = answer.text
    assert "<title>Just a moment...</title>\r\n" in text
    assert "Checking your browser before accessing</span> 127.0.0.1:" in text
    assert text.endswith("</html>\r\n") and "\n" not in text.replace("\r\n", "")
    assert web.get(f"{sandbox.base_url}/agents").json()["success"] is True  # used up
    assert stats(sandbox)["refused"][f"{AGENTS} cdn_challenge"] == before + 1


@pytest.mark.parametrize(
    ("name", "status", "title"),
    [
        ("http_502_html", 502, "502 Bad Gateway"),
        ("http_503_html", 503, "503 Service Temporarily Unavailable"),
    ],
)
def test_nginx_pages_are_nginxs_own_and_run_nothing(sandbox, name, status, title):
    created = _created(sandbox)
    set_faults(sandbox, api_fault_next={f"{name}@{CREATE}": 2})
    for _ in range(2):
        answer = web.post(f"{sandbox.base_url}/launches/create", json=ex.create_body())
        assert answer.status_code == status and answer.content == _nginx(title)
        assert answer.headers["content-type"] == "text/html"
    assert _created(sandbox) == created
    assert stats(sandbox)["refused"][f"{CREATE} {name}"] >= 2


def test_a_rate_applies_to_every_endpoint_without_one(sandbox):
    set_faults(sandbox, api_faults={"http_503_html": 1.0})
    try:
        assert web.get(f"{sandbox.base_url}/agents").status_code == 503
        assert web.get(f"{sandbox.base_url}/agents/none").status_code == 503
        assert web.get(f"{sandbox.url}/_sandbox/stats").status_code == 200  # not /v1
    finally:
        set_faults(sandbox, api_faults={})
    assert web.get(f"{sandbox.base_url}/agents").status_code == 200


def test_blackhole_never_answers_and_runs_nothing(sandbox):
    created = _created(sandbox)
    set_faults(sandbox, api_fault_next={f"blackhole@{CREATE}": 1})
    with pytest.raises(httpx.ReadTimeout):
        web.post(f"{sandbox.base_url}/launches/create", json=ex.create_body(), timeout=0.5)
    assert _created(sandbox) == created
    assert stats(sandbox)["refused"][f"{CREATE} blackhole"] >= 1


def test_lost_answer_on_create_keeps_the_create(sandbox):
    created = _created(sandbox)
    set_faults(sandbox, api_fault_next={f"lost_answer@{CREATE}": 1})
    with pytest.raises(httpx.ReadTimeout):
        web.post(f"{sandbox.base_url}/launches/create", json=ex.create_body(), timeout=0.5)
    assert _created(sandbox) == created + 1  # built and stored; only the answer was lost
    assert stats(sandbox)["refused"][f"{CREATE} lost_answer"] >= 1
    answer = web.post(f"{sandbox.base_url}/launches/create", json=ex.create_body())
    assert answer.status_code == 200 and _created(sandbox) == created + 2


@pytest.mark.parametrize(
    ("faults", "words"),
    [
        ({"api_faults": {"captcha": 0.5}}, "unknown API fault 'captcha'"),
        ({"api_fault_next": {"blackhole@create": 1}}, "METHOD /v1/path"),
        ({"api_faults": {"blackhole": 2.0}}, "out of range"),
    ],
)
def test_bad_api_faults_are_refused(sandbox, faults, words):
    answer = web.put(f"{sandbox.url}/_sandbox/faults", json=faults)
    assert answer.status_code == 400 and words in answer.text


def test_the_new_faults_are_shown_and_set_from_the_command_line(sandbox):
    shown = web.get(f"{sandbox.url}/_sandbox/faults").json()
    for field in ("api_faults", "api_fault_next", "pubsub_hang", "pubsub_hang_next"):
        assert field in shown
    faults = _faults(
        [
            f"api_fault_next=lost_answer@{CREATE}:2",
            'api_faults={"cdn_challenge": 0.1}',
            "rpc_fault_next=stale@getSlot:3",
            "pubsub_hang=true",
        ]
    )
    assert faults.api_fault_next == {f"lost_answer@{CREATE}": 2}
    assert faults.api_faults == {"cdn_challenge": 0.1}
    assert faults.rpc_fault_next == {"stale@getSlot": 3} and faults.pubsub_hang == 1.0
