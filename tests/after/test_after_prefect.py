"""Through Prefect (the session's test server): the mint-agent flow run twice is one
agent; the claim-rewards flow over a wallets file claims what accrued (once, an expired
claim blockhash asked again) and finishes a wallet with nothing to claim."""

from __future__ import annotations

import dataclasses

import pytest
from solders.keypair import Keypair

from tests.after.test_agents_mint import agents_named, write_agent
from tests.after.test_claims import FEE, curve_paying
from tests.support.pipeline import aim_flows_at, set_faults, stats


@pytest.fixture
def profile_in_env(sandbox_factory, tmp_path, monkeypatch, prefect_server):
    sandbox = sandbox_factory()
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home", LAUNCHOPS_REBROADCAST_SECONDS="0.3")
    return sandbox


async def test_the_mint_flow_run_twice_is_one_agent(profile_in_env, tmp_path):
    from launchops.flows.agents import mint_agent_flow

    sandbox = profile_in_env
    path = write_agent(tmp_path / "agents", "prefect-once", "Prefect Agent")
    first = await mint_agent_flow(str(path))
    second = await mint_agent_flow(str(path))
    assert first.finished and second == dataclasses.replace(first, from_journal=True)
    assert agents_named(sandbox, "Prefect Agent") == [first.asset]
    assert stats(sandbox)["api"]["POST /v1/agents/mint"] == 1


async def test_the_claim_flow_over_a_wallets_file(profile_in_env, tmp_path):
    from launchops.flows.rewards import claim_rewards_flow

    sandbox = profile_in_env
    earning, idle = Keypair().pubkey(), Keypair().pubkey()
    await curve_paying(sandbox, earning)
    wallets = tmp_path / "wallets.yaml"
    wallets.write_text(f"wallets:\n  - wallet: {earning}\n  - {idle}\n")
    set_faults(sandbox, expire_next=1)
    claimed, nothing = await claim_rewards_flow(str(wallets))
    assert claimed.finished and claimed.claimed == FEE and claimed.attempts == 2, claimed
    assert nothing.finished and nothing.nothing_to_claim and nothing.claimed == 0
    again = await claim_rewards_flow(str(wallets))
    assert [r.nothing_to_claim for r in again] == [True, True]  # paid once
