"""A profile key that is not the one that created a launch is refused for every step of
it (send, resume, register), in one line saying which key created it: the bytes the
old key signed are never sent by another profile, and the launch never registers under
another creator."""

from __future__ import annotations

import json

import pytest
from solders.keypair import Keypair

from tests.support.pipeline import launchops, profile_env, stats, write_launch
from tests.support.prefect_pool import airdrop


def with_key(env: dict[str, str], key: Keypair) -> dict[str, str]:
    secret = json.dumps(list(bytes(key)))
    return {**env, "LAUNCHOPS_KEYPAIR": "env:CREATOR_KEY", "CREATOR_KEY": secret}


@pytest.mark.parametrize("moment", ["sign: journaled", "confirm: journaled"])
def test_another_key_is_refused_for_a_launch_under_way(sandbox_factory, tmp_path, moment):
    sandbox = sandbox_factory()
    env = profile_env(sandbox, tmp_path / "home")
    first, other = Keypair(), Keypair()
    for key in (first, other):
        airdrop(sandbox, key)
    file = write_launch(tmp_path / "launches", key="key-changed")
    killed = launchops(with_key(env, first), "launch", str(file), "--no-prefect", kill=moment)
    assert killed.returncode == -9, killed.stderr[-2000:]
    for command in (["resume", "key-changed"], ["launch", str(file)]):
        done = launchops(with_key(env, other), *command, "--no-prefect", "--json")
        assert done.returncode == 2, (command, done.stdout[-2000:], done.stderr[-2000:])
        line = done.stderr.strip().splitlines()[-1]
        assert str(first.pubkey()) in line and str(other.pubkey()) in line, line
        assert "Traceback" not in done.stderr
    assert stats(sandbox)["launches"]["registered"] == 0
    again = launchops(with_key(env, first), "resume", "key-changed", "--no-prefect", "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["state"] == "registered"
