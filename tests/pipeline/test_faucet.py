"""The sandbox's faucet, as a launch with the sandbox profile meets it: a keypair running
low is topped up by airdrop, and an airdrop never confirmed ends the run in one line,
within its bound, instead of a launch failing later for want of funds."""

from __future__ import annotations

import time

import pytest
from solders.keypair import Keypair

from launchops.chain.rpc import ChainRpc
from launchops.errors import RpcUnavailable
from launchops.pipeline.embedded import SANDBOX_FUNDING, fund_from_faucet
from tests.support.pipeline import set_faults


async def test_a_key_running_low_is_funded_by_airdrop(sandbox_factory):
    sandbox = sandbox_factory()
    key = Keypair().pubkey()
    said: list[str] = []
    rpc = ChainRpc(sandbox.rpc_url)
    try:
        await fund_from_faucet(rpc, key, lambda _key, _step, message: said.append(message))
        assert await rpc.balance(key) == SANDBOX_FUNDING
    finally:
        await rpc.close()
    assert said == [f"funded {key} with {SANDBOX_FUNDING // 10**9} SOL by airdrop"]


class BalanceBehind(ChainRpc):
    """The sandbox's lagging node serves statuses from slots behind, but balances from the
    chain as it is; a real node behind shows the balance of its own slot. That part, the
    sandbox cannot do yet: here the node never shows the airdrop's funds."""

    async def balance(self, key):  # type: ignore[override]
        return 0


async def test_an_airdrop_never_confirmed_ends_in_one_line_within_the_bound(sandbox_factory):
    sandbox = sandbox_factory()
    # Statuses come from a node 1,000 slots behind: the airdrop is never seen there.
    set_faults(sandbox, rpc_lag_slots={"getSignatureStatuses": 1000})
    key = Keypair().pubkey()
    rpc = BalanceBehind(sandbox.rpc_url)
    started = time.monotonic()
    try:
        with pytest.raises(RpcUnavailable) as failed:
            await fund_from_faucet(rpc, key, lambda *_: None, within=1.5)
    finally:
        await rpc.close()
    assert time.monotonic() - started < 1.5 + 1.0
    message = str(failed.value)
    assert "\n" not in message
    assert f"the sandbox's faucet did not fund {key}" in message
    assert f"not confirmed within 1.5 s; is the sandbox at {sandbox.rpc_url}" in message


@pytest.mark.parametrize(
    "faults",
    [
        # Statuses from a node 1,000 slots behind: the funds are seen all the same.
        {"rpc_lag_slots": {"getSignatureStatuses": 1000}},
        # A minority fork's node shows the airdrop failed at `processed`: not taken.
        {"rpc_faults": {"failed_processed@getSignatureStatuses": 1.0}},
    ],
    ids=["statuses-behind", "failed-at-processed"],
)
async def test_statuses_that_lag_or_lie_do_not_stop_a_funded_run(sandbox_factory, faults):
    sandbox = sandbox_factory()
    set_faults(sandbox, **faults)
    key = Keypair().pubkey()
    rpc = ChainRpc(sandbox.rpc_url)
    try:
        await fund_from_faucet(rpc, key, lambda *_: None, within=5)
        assert await rpc.balance(key) == SANDBOX_FUNDING
    finally:
        await rpc.close()
