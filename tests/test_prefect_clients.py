"""The suite's Prefect clients load one certificate, not certifi's bundle (tests/conftest.py):
every client a flow run, a worker or a command makes builds a TLS context first, https or
not, and the suite's Prefect servers are all plain http on loopback."""

from __future__ import annotations

import os

from prefect.client.orchestration import PrefectClient, SyncPrefectClient


def _certificates(client: PrefectClient | SyncPrefectClient) -> int:
    context = client._client._transport._pool._ssl_context  # httpx's, as Prefect built it
    return context.cert_store_stats()["x509_ca"]


def test_a_prefect_client_in_the_suite_loads_one_certificate():
    assert os.path.isfile(os.environ["PREFECT_API_SSL_CERT_FILE"])
    for kind in (PrefectClient, SyncPrefectClient):
        assert _certificates(kind(api="http://127.0.0.1:9/api")) == 1, kind
