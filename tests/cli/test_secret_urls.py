"""An RPC or service URL that carries a key (`?api-key=`, a user and password) works as
given, and the key is in nothing launchops shows or keeps: not in a launch's output, not
in the one line of a failure the RPC or the service causes, not in `check`, not in any
file of its home (the journal among them). The CLI in child processes, against a real
sandbox whose RPC is made to fail, and a service on a refused port."""

from __future__ import annotations

import secrets

import pytest

from tests.support.pipeline import launchops, profile_env, set_faults, write_launch


@pytest.fixture
def keyed(sandbox_factory, tmp_path, prefect_env):
    """A sandbox, and an environment whose RPC URL has an API key in its query and whose
    service URL has a user and password; the launches' flows on the session's Prefect
    server (what a temporary server adds is tests/cli/test_temporary_server.py's)."""
    sandbox = sandbox_factory()
    rpc_key, password = f"rpcK{secrets.token_hex(12)}", f"svcP{secrets.token_hex(12)}"
    base = sandbox.base_url.replace("http://", f"http://ops:{password}@", 1)
    environment = profile_env(
        sandbox,
        tmp_path / "home",
        LAUNCHOPS_RPC_URL=f"{sandbox.rpc_url}/?api-key={rpc_key}",
        LAUNCHOPS_BASE_URL=base,
        LAUNCHOPS_RPC_CALL_SECONDS="2",
        LAUNCHOPS_SERVICE_CALL_SECONDS="2",
        **prefect_env,
    )
    return sandbox, environment, (rpc_key, password)


def _shows_none(keys: tuple[str, ...], *texts: str) -> None:
    for text in texts:
        for key in keys:
            assert key not in text, text


def test_a_keyed_url_works_and_its_key_is_never_shown_or_kept(keyed, tmp_path):
    sandbox, environment, keys = keyed
    launched = launchops(environment, "launch", str(write_launch(tmp_path, key="keyed-ok")))
    assert launched.returncode == 0, launched.stderr
    _shows_none(keys, launched.stdout, launched.stderr)

    set_faults(sandbox, rpc_error_rate=1.0)  # every RPC call refused: the RPC is gone
    rpc_down = launchops(environment, "launch", str(write_launch(tmp_path, key="keyed-rpc")))
    checked = launchops(environment, "check")
    assert rpc_down.returncode == 1, rpc_down.stderr
    assert "api-key=***" in rpc_down.stderr, rpc_down.stderr
    assert "api-key=***" in checked.stdout, checked.stdout
    _shows_none(keys, rpc_down.stdout, rpc_down.stderr, checked.stdout, checked.stderr)

    set_faults(sandbox, rpc_error_rate=0.0)
    refused = {**environment, "LAUNCHOPS_BASE_URL": f"http://ops:{keys[1]}@127.0.0.1:9/v1"}
    api_down = launchops(refused, "launch", str(write_launch(tmp_path, key="keyed-api")))
    checked = launchops(refused, "check", "--json")
    assert api_down.returncode == 1, api_down.stderr
    assert "http://***@127.0.0.1" in api_down.stderr, api_down.stderr
    assert "http://***@127.0.0.1" in checked.stdout, checked.stdout
    _shows_none(keys, api_down.stdout, api_down.stderr, checked.stdout, checked.stderr)

    kept = [path for path in (tmp_path / "home").rglob("*") if path.is_file()]
    assert any(path.name == "journal.db" for path in kept), kept
    for path in kept:
        content = path.read_bytes()
        assert not any(key.encode() in content for key in keys), path
