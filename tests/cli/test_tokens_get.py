"""`tokens get` of a token the profile launched, as Getting started shows it: without
`--network` it asks the profile's network and finds it; asked on another network, the one
line says where the profile's launches are."""

from __future__ import annotations

import json

from tests.support.pipeline import launchops, profile_env, write_launch


def test_tokens_get_finds_the_profiles_token_and_says_where_it_is_not(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()  # its own: the shared one's agents and tokens are counted
    env = profile_env(sandbox, tmp_path / "home")
    launched = launchops(
        env, "launch", str(write_launch(tmp_path, key="tokens-get")), "--no-prefect", "--json"
    )
    assert launched.returncode == 0, launched.stderr[-2000:]
    mint = json.loads(launched.stdout)["mint"]
    found = launchops(env, "tokens", "get", mint)
    assert found.returncode == 0, found.stderr[-2000:]
    assert mint in found.stdout
    elsewhere = launchops(env, "tokens", "get", mint, "--network", "solana-devnet")
    assert elsewhere.returncode == 1
    [line] = elsewhere.stderr.strip().splitlines()
    assert line == (
        f"error: 404 Token not found: no token {mint} on solana-devnet (profile sandbox "
        "launches on solana-mainnet: without --network, tokens get asks there)"
    )


def test_an_agents_wallet_asked_for_its_card_says_which_address_to_use(sandbox_factory, tmp_path):
    from solders.keypair import Keypair
    from solders.pubkey import Pubkey

    from launchops.api import programs as p
    from tests.support.pipeline import seed_agent

    sandbox = sandbox_factory()  # its own: the shared sandbox's agents are counted elsewhere
    env = profile_env(sandbox, tmp_path / "home")
    asset = seed_agent(sandbox, Keypair().pubkey())
    assert launchops(env, "agents", "card", asset).returncode == 0
    wallet = str(p.agent_wallet(Pubkey.from_string(asset)))
    asked = launchops(env, "agents", "card", wallet)
    assert asked.returncode == 1
    [line] = asked.stderr.strip().splitlines()
    assert line.startswith(f"error: 404 Agent not found: no agent {wallet} on solana-mainnet; ")
    assert line.endswith(
        "its Core asset's (its mint, as launchops agents list shows), not its wallet's"
    )
