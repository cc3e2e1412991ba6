"""The second line: before a launch transaction first leaves, the chain's simulation of it
says whom it pays, held to the rent of what it makes and the file's own spending. A
reader with a gap is caught there; an honest launch never is."""

from __future__ import annotations

import pytest
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.system_program import CreateAccountParams, TransferParams, create_account, transfer
from solders.transaction import VersionedTransaction

from launchops.chain import reader
from launchops.chain.effects import read_effects
from launchops.errors import TransactionRefused
from launchops.pipeline.runner import run_launch, validate
from launchops.sandbox.compromise import STRANGER
from tests.support.pipeline import context_for, set_faults, write_launch


async def signed(ctx, payer: Keypair, *ixs, others=()) -> bytes:
    blockhash, _ = await ctx.rpc.latest_blockhash()
    message = MessageV0.try_compile(payer.pubkey(), list(ixs), [], blockhash)
    return bytes(VersionedTransaction(message, [payer, *others]))


async def test_what_a_transaction_pays_is_held_to_the_rent_of_what_it_makes(sandbox, tmp_path):
    async with context_for(sandbox, tmp_path) as ctx:
        creator = ctx.keypair
        await ctx.rpc.airdrop(creator.pubkey(), 10**10)
        made = Keypair()
        rent = await ctx.rpc.client.get_minimum_balance_for_rent_exemption(165)
        honest = create_account(
            CreateAccountParams(
                from_pubkey=creator.pubkey(),
                to_pubkey=made.pubkey(),
                lamports=rent.value,
                space=165,
                owner=Keypair().pubkey(),
            )
        )
        raw = await signed(ctx, creator, honest, others=[made])
        keys = [creator.pubkey(), made.pubkey()]
        await read_effects(ctx.rpc, raw, 1, creator.pubkey(), keys)  # its rent: within
        theft = transfer(
            TransferParams(from_pubkey=creator.pubkey(), to_pubkey=STRANGER, lamports=5 * 10**9)
        )
        raw = await signed(ctx, creator, theft)
        with pytest.raises(TransactionRefused, match=rf"pay 4\.99910912 SOL to {STRANGER}"):
            await read_effects(ctx.rpc, raw, 2, creator.pubkey(), [creator.pubkey(), STRANGER])
        # What the file spends (its first buy) widens the bound by that much.
        await read_effects(
            ctx.rpc, raw, 2, creator.pubkey(), [creator.pubkey(), STRANGER], spends=5 * 10**9
        )


async def test_a_reader_with_a_gap_is_caught_by_the_chains_simulation(
    sandbox, tmp_path, monkeypatch
):
    """The reader made blind (as a gap in it would be): the service's 5 SOL transfer, added
    to the create's last transaction, is refused before that one is sent, by what the
    chain says it would do; what landed before it waits for a person."""
    monkeypatch.setattr(reader, "_Instruction", _Blind)
    path = write_launch(tmp_path / "files", "gap.yaml", key="reader-gap")
    set_faults(sandbox, compromised_next=["transfer"])
    async with context_for(sandbox, tmp_path) as ctx:
        record = await run_launch(ctx, (await validate(ctx, path)).key)
        taken = await ctx.rpc.balance(STRANGER)
    assert record.state == "needs_attention", record.last_error
    last = len(record.current.sends)
    assert record.last_error.startswith(
        f"transaction {last}: the chain's simulation has it pay 4.99910912 SOL to {STRANGER}"
    )
    assert not record.current.sends[-1].sent and taken == 0


class _Blind:
    def __init__(self, *args, **kwargs) -> None:
        pass

    def read(self) -> None:
        pass
