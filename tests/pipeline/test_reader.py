"""The launch's transactions read against the file before the creator signs them: a
create answer as the sandbox (the service's double) builds it passes, in every form; the
same answer rewritten to steal is refused, in one line naming the transaction, the
instruction and what it would do, and nothing is signed."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from solders.hash import Hash
from solders.instruction import AccountMeta, Instruction
from solders.keypair import Keypair
from solders.message import MessageV0
from solders.pubkey import Pubkey
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction
from spl.token.instructions import AuthorityType, approve, set_authority
from spl.token.models import ApproveParams, SetAuthorityParams

from launchops.api import programs as p
from launchops.api.allocations import BondingCurveAllocation
from launchops.api.amounts import lamports
from launchops.api.client import AsyncServiceClient
from launchops.chain.reader import Expected, read_allocations, read_launch
from launchops.config.launchfile import load_launch_file
from launchops.errors import TransactionRefused
from launchops.genesis.instructions import build_instruction, decode_instruction
from launchops.genesis.pdas import GENESIS_PROGRAM, find_genesis_account_v2
from launchops.pipeline.reading import allocations_of, keys_named
from tests.support.pipeline import ROOT

STRANGER = Pubkey.from_string("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T")
UNKNOWN = Keypair().pubkey()  # a program no launch uses
FORMS = ["launchpool", "launchpool-locked", "presale", "raw-allocations", "bonding-curve"]


async def answer_for(sandbox, form: str) -> tuple[list[bytes], Expected, Keypair]:
    """The sandbox's create answer for a configs/ file, and what the file says it is."""
    creator = Keypair()
    path = ROOT / "configs" / f"{form}.yaml"
    config = load_launch_file(path, wallet=creator.pubkey(), now=datetime.now(UTC)).config
    async with AsyncServiceClient(sandbox.base_url) as client:
        created = await client.create_launch(creator.pubkey(), config)
    buy = next(
        (
            a.bonding_curve_v2.first_buy
            for a in config.allocations
            if isinstance(a, BondingCurveAllocation)
        ),
        None,
    )
    first_buy = (buy.buyer, lamports(buy.amount)) if buy and buy.enabled else None
    expected = Expected(
        fee_payer=creator.pubkey(),
        creator=creator.pubkey(),
        mint=created.mint_address,
        genesis=find_genesis_account_v2(created.mint_address, 0)[0],
        name=config.name,
        symbol=config.symbol,
        uri=config.image,
        decimals=config.decimals,
        total=config.supply * 10**config.decimals,
        first_buy=first_buy,
        allocations=allocations_of(config),
        named=keys_named(config.to_wire()),
        quote_mint=Pubkey.from_string(str(config.quote_mint)),
    )
    return [bytes(t) for t in created.transactions], expected, creator


def instructions_of(raw: bytes) -> list[Instruction]:
    message = VersionedTransaction.from_bytes(raw).message
    keys = list(message.account_keys)

    def meta(i: int) -> AccountMeta:
        writable = (
            message.is_maybe_writable(i)
            if isinstance(message, MessageV0)
            else message.is_writable(i)
        )
        return AccountMeta(keys[i], message.is_signer(i), writable)

    return [
        Instruction(keys[ix.program_id_index], bytes(ix.data), [meta(i) for i in ix.accounts])
        for ix in message.instructions
    ]


def rebuilt(raw: bytes, ixs: list[Instruction], payer: Pubkey | None = None) -> bytes:
    """The transaction with other instructions (signatures left empty: the reader reads
    before anything is signed)."""
    old = VersionedTransaction.from_bytes(raw).message
    fee_payer = payer or old.account_keys[0]
    return _populate(MessageV0.try_compile(fee_payer, ixs, [], Hash.default()))


def _populate(message: MessageV0) -> bytes:
    from solders.signature import Signature

    count = message.header.num_required_signatures
    return bytes(VersionedTransaction.populate(message, [Signature.default()] * count))


def read_all(transactions: list[bytes], expected: Expected) -> int:
    """Read every transaction (refused: raises), as the sign step does; how many were read."""
    read_allocations(transactions, expected, None)
    for number, raw in enumerate(transactions, start=1):
        read_launch(raw, number, expected, None)
    return len(transactions)


@pytest.mark.parametrize("form", FORMS)
async def test_an_honest_create_of_every_form_passes(sandbox, form):
    transactions, expected, _ = await answer_for(sandbox, form)
    assert read_all(transactions, expected) == len(transactions) >= 2
    # What it read is the create: initializeV2 first, by the program the reader holds to.
    first = instructions_of(transactions[0])[0]
    assert first.program_id == GENESIS_PROGRAM and first.data[0] == 42  # initializeV2


def _stealing(creator: Pubkey, mint: Pubkey) -> dict[str, tuple[list[Instruction], str]]:
    """Instructions a compromised service could add, and what the refusal says of each."""
    token_account = p.token_account_address(creator, mint)
    unknown = Instruction(
        UNKNOWN,
        b"\x00",
        [AccountMeta(creator, False, True)],
    )
    return {
        "transfer": (
            [transfer(TransferParams(from_pubkey=creator, to_pubkey=STRANGER, lamports=5 * 10**9))],
            f"a System transfer of 5 SOL from {creator} to {STRANGER}",
        ),
        "set authority": (
            [
                set_authority(
                    SetAuthorityParams(
                        program_id=p.TOKEN_PROGRAM,
                        account=mint,
                        authority=AuthorityType.MINT_TOKENS,
                        current_authority=creator,
                        new_authority=STRANGER,
                    )
                )
            ],
            "a token program SetAuthority on",
        ),
        "approve": (
            [
                approve(
                    ApproveParams(
                        program_id=p.TOKEN_PROGRAM,
                        source=token_account,
                        delegate=STRANGER,
                        owner=creator,
                        amount=10**12,
                    )
                )
            ],
            "a token program Approve on",
        ),
        "unknown program": ([unknown], f"an instruction of program {UNKNOWN}"),
    }


@pytest.mark.parametrize("attack", ["transfer", "set authority", "approve", "unknown program"])
async def test_an_added_instruction_is_refused_naming_it(sandbox, attack):
    transactions, expected, creator = await answer_for(sandbox, "launchpool")
    added, said = _stealing(creator.pubkey(), expected.mint)[attack]
    last = len(transactions)
    tampered = rebuilt(transactions[-1], [*instructions_of(transactions[-1]), *added])
    with pytest.raises(TransactionRefused) as refused:
        read_all([*transactions[:-1], tampered], expected)
    line = str(refused.value)
    count = len(instructions_of(transactions[-1])) + 1
    assert line.startswith(f"transaction {last}, instruction {count}: {said}"), line
    assert line.endswith("which the file does not ask for: nothing signed"), line


async def test_an_added_transaction_is_refused(sandbox):
    transactions, expected, creator = await answer_for(sandbox, "presale")
    added, said = _stealing(creator.pubkey(), expected.mint)["transfer"]
    extra = rebuilt(transactions[-1], added)
    with pytest.raises(
        TransactionRefused, match=f"transaction {len(transactions) + 1}, instruction 1: {said}"
    ):
        read_all([*transactions, extra], expected)


async def test_another_fee_payer_or_signer_is_refused_naming_it(sandbox):
    transactions, expected, _ = await answer_for(sandbox, "launchpool")
    last = transactions[-1]
    other = rebuilt(last, instructions_of(last), payer=STRANGER)
    with pytest.raises(TransactionRefused, match=f"its fee payer is {STRANGER}, not the creator"):
        read_launch(other, len(transactions), expected, None)
    memo = Instruction(p.MEMO_PROGRAM, b"hi", [AccountMeta(STRANGER, True, False)])
    signed = rebuilt(last, [*instructions_of(last), memo])
    with pytest.raises(TransactionRefused, match=f"asks for the signature of {STRANGER}"):
        read_launch(signed, len(transactions), expected, None)


async def test_a_genesis_instruction_unlike_the_file_is_refused(sandbox):
    transactions, expected, creator = await answer_for(sandbox, "launchpool")
    first = instructions_of(transactions[0])
    args = {
        "decimals": expected.decimals,
        "genesisIndex": 0,
        "fundingMode": 0,
        "totalSupplyBaseToken": expected.total,
        "name": "Not Your Token",
        "uri": expected.uri,
        "symbol": expected.symbol,
    }
    accounts = {"baseMint": expected.mint, "authority": creator.pubkey()}
    forged = build_instruction(
        "initializeV2", args, accounts, payer=creator.pubkey(), signers=("baseMint",)
    )
    tampered = rebuilt(transactions[0], [forged, *first[1:]])
    with pytest.raises(
        TransactionRefused,
        match="transaction 1, instruction 1: initializeV2 with name 'Not Your Token'",
    ):
        read_all([tampered, *transactions[1:]], expected)
    stranger_authority = build_instruction(
        "initializeV2",
        {**args, "name": expected.name},
        {"baseMint": expected.mint, "authority": STRANGER},
        payer=creator.pubkey(),
        signers=("baseMint",),
    )
    tampered = rebuilt(transactions[0], [stranger_authority, *first[1:]])
    # The authority signs initializeV2: a stranger's is a signature the file never asks for.
    with pytest.raises(TransactionRefused, match=f"asks for the signature of {STRANGER}"):
        read_all([tampered, *transactions[1:]], expected)


def test_a_first_buy_larger_than_the_file_says_is_refused():
    buyer, mint = Keypair().pubkey(), Keypair().pubkey()
    expected = Expected(
        fee_payer=buyer,
        creator=buyer,
        mint=mint,
        genesis=find_genesis_account_v2(mint, 0)[0],
        name="n",
        symbol="s",
        uri="u",
        decimals=6,
        total=10**15,
        first_buy=(buyer, 10**9),
    )
    wrap = transfer(
        TransferParams(
            from_pubkey=buyer,
            to_pubkey=p.token_account_address(buyer, p.NATIVE_MINT),
            lamports=2 * 10**9,
        )
    )
    raw = _populate(MessageV0.try_compile(buyer, [wrap], [], Hash.default()))
    with pytest.raises(TransactionRefused, match="a System transfer of 2 SOL"):
        read_launch(raw, 4, expected, None)


def _retouched(transactions: list[bytes], change, role: str = "bucket") -> list[bytes]:
    """The create with its first add-bucket instruction that has `role` rebuilt by
    `change(args, roles)`."""
    for number, raw in enumerate(transactions):
        ixs = instructions_of(raw)
        for position, ix in enumerate(ixs):
            if ix.program_id != GENESIS_PROGRAM:
                continue
            name, args, roles = decode_instruction(GENESIS_PROGRAM, bytes(ix.data), ix.accounts)
            if name.startswith("add") and "baseTokenAllocation" in args and role in roles:
                args, roles = change(dict(args), dict(roles))
                forged = build_instruction(name, args, roles)
                metas = [
                    AccountMeta(new.pubkey, old.is_signer, old.is_writable)
                    for new, old in zip(forged.accounts, ix.accounts, strict=True)
                ]
                ixs[position] = Instruction(ix.program_id, bytes(forged.data), metas)
                copy = list(transactions)
                copy[number] = rebuilt(raw, ixs)
                return copy
    raise AssertionError("no add-bucket instruction")


async def test_buckets_allocating_other_amounts_than_the_file_are_refused(sandbox):
    transactions, expected, _ = await answer_for(sandbox, "raw-allocations")

    def more(args, roles):
        return {**args, "baseTokenAllocation": args["baseTokenAllocation"] + 1}, roles

    with pytest.raises(
        TransactionRefused, match=r"the create's buckets allocate .* where the file"
    ):
        read_all(_retouched(transactions, more), expected)


async def test_a_bucket_paying_someone_the_file_does_not_name_is_refused(sandbox):
    transactions, expected, _ = await answer_for(sandbox, "raw-allocations")

    def to_stranger(args, roles):
        return args, {**roles, "recipient": STRANGER}

    with pytest.raises(TransactionRefused, match=f"paying {STRANGER}, whom the file does not"):
        read_all(_retouched(transactions, to_stranger, "recipient"), expected)


async def test_another_quote_mint_than_the_files_is_refused(sandbox):
    transactions, expected, _ = await answer_for(sandbox, "presale")
    other = Keypair().pubkey()
    with pytest.raises(TransactionRefused, match=f"on the quoteMint {expected.quote_mint}, not"):
        read_all(transactions, replace(expected, quote_mint=other))


async def test_fees_to_another_wallet_than_the_programs_are_refused(sandbox):
    transactions, expected, creator = await answer_for(sandbox, "launchpool")
    first = instructions_of(transactions[0])
    name, args, _ = decode_instruction(GENESIS_PROGRAM, bytes(first[0].data), first[0].accounts)
    assert name == "initializeV2"
    forged = build_instruction(
        name,
        args,
        {"baseMint": expected.mint, "authority": creator.pubkey(), "feeWallet": STRANGER},
        payer=creator.pubkey(),
        signers=("baseMint",),
    )
    tampered = rebuilt(transactions[0], [forged, *first[1:]])
    with pytest.raises(TransactionRefused, match=f"initializeV2 on the feeWallet {STRANGER}"):
        read_all([tampered, *transactions[1:]], expected)
