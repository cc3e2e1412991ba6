"""Agents minted once, through the plain driver: a mint run twice is one agent; a mint
whose blockhash expired is built again, still one agent; a bad file is one clear line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import launchops.web as web
from launchops.errors import LaunchFileError
from launchops.library.after import mint_agent_in
from launchops.states import LaunchState
from tests.support.pipeline import context_for, set_faults, stats


def write_agent(folder: Path, agent_id: str, name: str = "Once Agent") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{agent_id}.yaml"
    path.write_text(
        f"id: {agent_id}\n"
        f"name: {name}\n"
        "uri: https://gateway.irys.xyz/once.json\n"
        "metadata:\n"
        f"  name: {name}\n"
        "  description: minted once\n"
        "  services:\n"
        "    - name: MCP\n"
        "      endpoint: https://example.com/mcp\n"
    )
    return path


def agents_named(sandbox, name: str) -> list[str]:
    answer = web.get(
        f"{sandbox.base_url}/agents", params={"query": name, "pageSize": 100}, timeout=30
    )
    return [a["mintAddress"] for a in answer.json()["data"]["agents"] if a["name"] == name]


async def test_a_mint_run_twice_is_one_agent(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    path = write_agent(tmp_path / "agents", "twice", "Twice Agent")
    async with context_for(sandbox, tmp_path / "home") as ctx:
        first = await mint_agent_in(ctx, path)
        second = await mint_agent_in(ctx, path)
    assert first.state is LaunchState.CONFIRMED and first.finished, first
    assert first.key == "agent-twice" and first.asset
    assert not first.from_journal and second.from_journal  # the second, said so
    assert second == dataclasses.replace(first, from_journal=True)  # not minted again
    assert agents_named(sandbox, "Twice Agent") == [first.asset]
    assert stats(sandbox)["api"].get("POST /v1/agents/mint") == 1


async def test_an_expired_mint_is_built_again_and_mints_one_agent(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    set_faults(sandbox, expire_next=1)
    path = write_agent(tmp_path / "agents", "expiring", "Expiring Agent")
    async with context_for(sandbox, tmp_path / "home") as ctx:
        result = await mint_agent_in(ctx, path)
    assert result.finished and result.attempts == 2, result
    assert agents_named(sandbox, "Expiring Agent") == [result.asset]


async def test_a_bad_agent_file_is_refused_before_anything_is_asked(sandbox, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nuri: https://example.com/x.json\n")
    async with context_for(sandbox, tmp_path / "home") as ctx:
        with pytest.raises(LaunchFileError, match="metadata"):
            await mint_agent_in(ctx, path)


def test_a_mint_that_pays_the_wallets_sol_elsewhere_is_refused_unsigned():
    from types import SimpleNamespace

    from solders.hash import Hash
    from solders.keypair import Keypair
    from solders.message import MessageV0
    from solders.system_program import TransferParams, transfer
    from solders.transaction import VersionedTransaction

    from launchops.errors import TransactionRefused
    from launchops.pipeline.agents import check_mint

    wallet, asset, thief = Keypair(), Keypair().pubkey(), Keypair().pubkey()
    move = transfer(TransferParams(from_pubkey=wallet.pubkey(), to_pubkey=thief, lamports=1))
    message = MessageV0.try_compile(wallet.pubkey(), [move], [], Hash.default())
    raw = bytes(VersionedTransaction(message, [wallet]))
    ctx = SimpleNamespace(wallet=wallet.pubkey())
    record = SimpleNamespace(current=SimpleNamespace(created=SimpleNamespace(mint=asset)))
    with pytest.raises(TransactionRefused, match="not into the new asset"):
        check_mint(ctx, record, raw)  # type: ignore[arg-type]


async def test_an_agent_file_for_another_network_is_refused(sandbox, tmp_path):
    path = write_agent(tmp_path / "agents", "elsewhere", "Elsewhere Agent")
    path.write_text(path.read_text() + "network: solana-devnet\n")
    async with context_for(sandbox, tmp_path / "home") as ctx:
        with pytest.raises(LaunchFileError, match="network"):
            await mint_agent_in(ctx, path)
