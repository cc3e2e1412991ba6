"""What a launch cost, from the chain: `lamportsSpent` in the result, `status` and the
batch report is what left the creator's account (the balance changes of what landed:
fees, the rent of what the launch made, a tip), equal to the drop of its balance."""

from __future__ import annotations

import json

from solders.keypair import Keypair

from tests.support.pipeline import launchops, profile_env, write_launch
from tests.support.prefect_pool import airdrop


def balance(sandbox, key) -> int:
    import launchops.web as web

    body = {"jsonrpc": "2.0", "id": 1, "method": "getBalance", "params": [str(key)]}
    return web.post(sandbox.rpc_url, json=body).json()["result"]["value"]


def test_lamports_spent_is_what_left_the_creators_account(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    creator = Keypair()
    airdrop(sandbox, creator)
    env = {
        **profile_env(sandbox, tmp_path / "home"),
        "LAUNCHOPS_KEYPAIR": "env:CREATOR_KEY",
        "CREATOR_KEY": json.dumps(list(bytes(creator))),
    }
    folder = tmp_path / "launches"
    for index in range(2):
        write_launch(folder, f"l{index}.yaml", key=f"costs-{index}")
    before = balance(sandbox, creator.pubkey())
    done = launchops(env, "batch", str(folder), "--no-prefect", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    left = before - balance(sandbox, creator.pubkey())
    assert result["spent"]["lamportsSpent"] == left
    fees = sum(row["lamportsSpent"] for row in result["launches"])
    assert fees == left and all(row["lamportsSpent"] > 3 * 5000 for row in result["launches"])
    rows = {row["key"]: row for row in result["launches"]}
    status = json.loads(launchops(env, "status", "costs-0", "--json").stdout)
    assert status["lamportsSpent"] == rows["costs-0"]["lamportsSpent"]
