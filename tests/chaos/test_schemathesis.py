"""The sandbox's /v1 API under schemathesis (its own OpenAPI): no 500 for any generated
request, and every error in the spec's envelope (or the read endpoints' `{error:
{message}}`). The admin surface is left out: fuzzing it would turn faults on for the
session's shared sandbox (a by-hand `schemathesis run` covers it: no 500 either).
15 examples per operation in CI; `LAUNCHOPS_SCHEMATHESIS_EXAMPLES=150 pytest
tests/chaos/test_schemathesis.py` by hand."""

from __future__ import annotations

import os

import schemathesis
from hypothesis import HealthCheck, settings

from launchops.sandbox.app import build_app
from launchops.sandbox.service import SandboxService

EXAMPLES = int(os.environ.get("LAUNCHOPS_SCHEMATHESIS_EXAMPLES", "15"))
schema = schemathesis.openapi.from_dict(build_app(SandboxService(slot_ms=0)).openapi()).exclude(
    path_regex="^/_sandbox"
)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error_and_errors_in_the_envelope(case, sandbox):
    response = case.call(base_url=sandbox.url)
    assert response.status_code < 500, (case.operation.label, response.text[:500])
    if response.status_code >= 400:
        body = response.json()
        read_error = set(body) == {"error"} and isinstance(body["error"].get("message"), str)
        envelope = body.get("success") is False and isinstance(body.get("error"), str)
        assert read_error or envelope, (case.operation.label, body)
        if envelope and "details" in body:
            assert isinstance(body["details"], list)
