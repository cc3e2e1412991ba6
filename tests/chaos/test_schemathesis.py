"""The sandbox's /v1 API under schemathesis (its own OpenAPI): no 500 for any generated
request, and every error in the spec's envelope (or the read endpoints' `{error:
{message}}`). The admin surface is left out: fuzzing it would turn faults on for the
session's shared sandbox (a by-hand `schemathesis run` covers it: no 500 either).
15 examples per operation in CI; `LAUNCHOPS_SCHEMATHESIS_EXAMPLES=150 pytest
tests/chaos/test_schemathesis.py` by hand. Three tests (create, register, the rest), a
subtest per operation (each reported, and failing, as `test_...[POST /v1/agents/mint]`)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings

from launchops.sandbox.app import build_app
from launchops.sandbox.service import SandboxService

EXAMPLES = int(os.environ.get("LAUNCHOPS_SCHEMATHESIS_EXAMPLES", "15"))


@pytest.fixture(scope="module")
def sandbox_schema():
    """The sandbox's OpenAPI, loaded when the test runs: a schema loaded at import has
    schemathesis build every operation's coverage cases at collection, in every xdist
    process that collects this module (7 s of CPU each), whether it runs the test or not."""
    app = build_app(SandboxService(slot_ms=0))
    return schemathesis.openapi.from_dict(app.openapi())


@pytest.fixture(scope="module")
def http() -> Iterator[requests.Session]:
    """One keep-alive connection for the module's thousands of requests (schemathesis
    opens a session, and a connection, per request without one: a third of its CPU), and
    no proxy settings read from the environment for each."""
    with requests.Session() as session:
        session.trust_env = False
        yield session


schema = schemathesis.pytest.from_fixture("sandbox_schema").exclude(path_regex="^/_sandbox")
# The two operations with the largest bodies (most of the sweep: ~2,900 coverage cases
# each) are tests of their own, so that the suite's processes share the sweep out.
LARGEST = ("/v1/launches/create", "/v1/launches/register")
SWEPT = {
    "create": schema.include(path=LARGEST[0]),
    "register": schema.include(path=LARGEST[1]),
    "the_rest": schema.exclude(path=list(LARGEST)),
}


def _answer_broken(case, sandbox, http) -> tuple[str, int, object] | None:
    """What is wrong with the sandbox's answer to `case` (its operation, status and body),
    or None: a 500, or an error outside the envelope (or the reads' `{error: {message}}`)."""
    response = case.call(base_url=sandbox.url, session=http)
    label, status = case.operation.label, response.status_code
    if status >= 500:
        return label, status, response.text[:500]
    if status < 400:
        return None
    body = response.json()
    read_error = set(body) == {"error"} and isinstance(body["error"].get("message"), str)
    envelope = body.get("success") is False and isinstance(body.get("error"), str)
    details_ok = not envelope or isinstance(body.get("details", []), list)
    return None if (read_error or envelope) and details_ok else (label, status, body)


SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@SWEPT["create"].parametrize()
@SETTINGS
def test_create_never_500s_and_errs_in_the_envelope(case, sandbox, http):
    assert _answer_broken(case, sandbox, http) is None


@SWEPT["register"].parametrize()
@SETTINGS
def test_register_never_500s_and_errs_in_the_envelope(case, sandbox, http):
    assert _answer_broken(case, sandbox, http) is None


@SWEPT["the_rest"].parametrize()
@SETTINGS
def test_every_other_operation_never_500s_and_errs_in_the_envelope(case, sandbox, http):
    assert _answer_broken(case, sandbox, http) is None
