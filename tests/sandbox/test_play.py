"""A transaction mixing a played program's instructions with ones LiteSVM runs lands all or
nothing: every effect, or none but its fee, and the failing instruction's index as a node
reports it; a simulation and a preflight try it and leave the chain as it was."""

from __future__ import annotations

import pytest
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import Message
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from launchops.errors import RpcError
from launchops.sandbox.chain import Chain
from launchops.sandbox.play import Call, Play, Refused, played

PROGRAM = Pubkey.from_string("P1ay111111111111111111111111111111111111111")
SOL = 10**9


def note(play: Play, call: Call) -> None:
    """A played program: `make` writes its data into a new account the payer pays for;
    `no` is refused with custom error 7."""
    if call.data == b"no":
        raise Refused({"Custom": 7}, "told to refuse")
    play.make(call.key(1), PROGRAM, call.data, call.key(0))


def played_ix(payer: Pubkey, target: Pubkey, data: bytes) -> Instruction:
    metas = [AccountMeta(payer, True, True), AccountMeta(target, True, True)]
    return Instruction(PROGRAM, data, metas)


def send(chain: Chain, payer: Keypair, ixs: list[Instruction], *signers: Keypair) -> dict:
    message = Message.new_with_blockhash(ixs, payer.pubkey(), chain.latest_blockhash()[0])
    tx = VersionedTransaction(message, [payer, *signers])
    signature = chain.send(bytes(tx), skip_preflight=True)
    chain.advance()
    return chain.status(signature)


@pytest.fixture
def chain() -> Chain:
    chain = Chain(slot_ms=0)
    chain.emulate = lambda tx: played(tx, chain.keys_of(tx), {PROGRAM: note})
    return chain


def funded(chain: Chain, lamports: int = 10 * SOL) -> Keypair:
    keypair = Keypair()
    chain.airdrop(keypair.pubkey(), lamports)
    return keypair


def test_every_effect_lands_the_real_and_the_played(chain):
    payer, made, friend = funded(chain), Keypair(), Keypair().pubkey()
    ixs = [
        transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=friend, lamports=SOL)),
        played_ix(payer.pubkey(), made.pubkey(), b"hello"),
    ]
    status = send(chain, payer, ixs, made)
    assert status["err"] is None
    assert chain.account(friend).lamports == SOL
    account = chain.account(made.pubkey())
    assert bytes(account.data) == b"hello" and account.owner == PROGRAM
    rent = chain.rent_exempt(5)
    assert chain.account(payer.pubkey()).lamports == 10 * SOL - SOL - rent - 2 * 5000


@pytest.mark.parametrize(
    ("order", "failing", "error"),
    [
        ("real-then-refused", 1, {"Custom": 7}),
        ("played-then-real-fails", 1, {"Custom": 1}),  # the System program's: too few lamports
    ],
)
def test_a_failure_anywhere_leaves_nothing_but_the_fee(chain, order, failing, error):
    payer, made, friend = funded(chain), Keypair(), Keypair().pubkey()
    if order == "real-then-refused":
        ixs = [
            transfer(TransferParams(from_pubkey=payer.pubkey(), to_pubkey=friend, lamports=SOL)),
            played_ix(payer.pubkey(), made.pubkey(), b"no"),
        ]
    else:
        too_much = 100 * SOL
        ixs = [
            played_ix(payer.pubkey(), made.pubkey(), b"hello"),
            transfer(
                TransferParams(from_pubkey=payer.pubkey(), to_pubkey=friend, lamports=too_much)
            ),
        ]
    status = send(chain, payer, ixs, made)
    assert status["err"] == {"InstructionError": [failing, error]}
    assert chain.account(friend) is None and chain.account(made.pubkey()) is None
    assert chain.account(payer.pubkey()).lamports == 10 * SOL - 2 * 5000


def test_a_simulation_and_a_preflight_leave_the_chain_as_it_was(chain):
    payer, made = funded(chain), Keypair()
    message = Message.new_with_blockhash(
        [played_ix(payer.pubkey(), made.pubkey(), b"no")],
        payer.pubkey(),
        chain.latest_blockhash()[0],
    )
    tx = VersionedTransaction(message, [payer, made])
    assert chain.simulate(bytes(tx))["err"] == {"InstructionError": [0, {"Custom": 7}]}
    with pytest.raises(RpcError) as refused:
        chain.send(bytes(tx))
    assert refused.value.code == -32002
    assert "custom program error: 0x7" in str(refused.value)
    assert chain.account(payer.pubkey()).lamports == 10 * SOL

    good = Message.new_with_blockhash(
        [played_ix(payer.pubkey(), made.pubkey(), b"ok")],
        payer.pubkey(),
        chain.latest_blockhash()[0],
    )
    simulated = chain.simulate(bytes(VersionedTransaction(good, [payer, made])))
    assert simulated["err"] is None and chain.account(made.pubkey()) is None
