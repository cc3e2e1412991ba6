"""launchops.genesis on its own (no node): every instruction and account reads back what
it writes, the bytes of the primitives and of the sentinels are those of the generated
client, defaults resolve to the addresses they name, and what is not a layout is refused
with a `LayoutError` that says why."""

from __future__ import annotations

import struct

import pytest
from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from launchops.genesis import (
    GENESIS_PROGRAM,
    LayoutError,
    build_instruction,
    decode_account,
    decode_account_as,
    decode_instruction,
    describe,
    encode_account,
    instruction_problems,
    pdas,
)
from launchops.genesis import codec as c
from launchops.genesis import metadata as m
from launchops.genesis import types as t
from launchops.genesis.instructions import SPECS, finalize_v2, initialize_v2
from tests.genesis.account_samples import ACCOUNTS, METADATA
from tests.genesis.samples import (
    GENESIS,
    INSTRUCTIONS,
    MINT,
    OTHER,
    PAYER,
    TRADING,
    assert_within,
)


def test_integers_are_little_endian_and_bounded():
    assert c.U16.encode(0x0102) == b"\x02\x01"
    assert c.U64.encode(2**64 - 1) == b"\xff" * 8
    assert c.I64.decode(b"\xff" * 8) == -1
    for codec, value in ((c.U8, 256), (c.U64, -1), (c.I64, 2**63), (c.U16, True)):
        with pytest.raises(LayoutError):
            codec.encode(value)
    with pytest.raises(LayoutError, match="needs 8 bytes"):
        c.U64.decode(b"\x00" * 7)


def test_a_string_is_its_utf8_length_then_its_bytes():
    assert c.STRING.encode("é✓") == struct.pack("<I", 5) + "é✓".encode()
    assert c.STRING.decode(c.STRING.encode("é✓")) == "é✓"
    with pytest.raises(LayoutError, match="not UTF-8"):
        c.STRING.decode(b"\x01\x00\x00\x00\xff")
    with pytest.raises(LayoutError, match="needs 9 bytes"):
        c.STRING.decode(b"\x09\x00\x00\x00abc")


def test_bools_and_option_tags_other_than_0_or_1_are_refused():
    assert c.BOOL.decode(b"\x01") is True
    option = c.Option(c.U8)
    assert option.encode(None) == b"\x00" and option.encode(0) == b"\x01\x00"
    assert option.decode(b"") is None  # the end of the data, as umi reads it
    for codec, data in ((c.BOOL, b"\x02"), (option, b"\x02\x05")):
        with pytest.raises(LayoutError):
            codec.decode(data)


def test_a_fixed_size_option_writes_its_sentinel_for_none():
    condition_none = b"\xff" + bytes(55) + b"\xff" * 7 + b"\x7f"
    assert condition_none == t.CONDITION_NONE
    schedule = c.FixedOption(t.LINEAR_BPS_SCHEDULE_V2, t.LINEAR_BPS_SCHEDULE_NONE)
    assert schedule.encode(None) == bytes(24) + condition_none + bytes(72)
    assert schedule.decode(schedule.encode(None)) is None
    timestamp = c.FixedOption(c.I64, t.I64_NONE)
    assert timestamp.decode(c.I64.encode(2**63 - 1)) is None  # as the client reads it
    assert timestamp.decode(c.I64.encode(0)) == 0
    with pytest.raises(ValueError):
        c.FixedOption(c.U64, bytes(7))


def test_a_condition_is_64_bytes_whatever_its_variant():
    assert t.CONDITION.size == 64 and t.BEHAVIOR.size == 40
    value = t.time_relative(OTHER, t.BucketTimes.Graduate, -5)
    data = t.CONDITION.encode(value)
    assert data[:2] == bytes([t.ConditionTypes.TimeRelative, t.BucketTimes.Graduate])
    assert_within(t.CONDITION.decode(data), {**value, "triggeredTimestamp": None})
    with pytest.raises(LayoutError, match="no variant 6"):
        t.CONDITION.decode(bytes([6]) + bytes(63))
    with pytest.raises(LayoutError, match="no variant 'Sometimes'"):
        t.CONDITION.encode(c.variant("Sometimes"))


def test_initialize_v2_data_is_laid_out_as_the_notes_say():
    args = {"decimals": 6, "fundingMode": 0, "totalSupplyBaseToken": 10**15}
    data = SPECS["initializeV2"].encode({**args, "name": "A", "uri": "bc", "symbol": ""})
    head = struct.pack("<BBHB3xQ", 42, 6, 0, 0, 10**15)
    assert data == head + b"\x01\x00\x00\x00A" + b"\x02\x00\x00\x00bc" + bytes(4)


@pytest.mark.parametrize("index", range(len(INSTRUCTIONS)), ids=lambda i: INSTRUCTIONS[i].name)
def test_every_instruction_reads_back_what_it_writes(index):
    ix = INSTRUCTIONS[index]
    built = build_instruction(
        ix.name, ix.args, ix.accounts, payer=ix.payer, identity=ix.identity, signers=ix.signers
    )
    name, args, roles = decode_instruction(built.program_id, bytes(built.data), built.accounts)
    assert name == ix.name
    assert_within(args, ix.args)
    assert_within(roles, ix.accounts)
    assert SPECS[name].encode(args) == bytes(built.data)


@pytest.mark.parametrize("index", range(len(ACCOUNTS)), ids=lambda i: ACCOUNTS[i][0])
def test_every_account_reads_back_what_it_writes(index):
    name, value = ACCOUNTS[index]
    data = encode_account(name, value)
    found, decoded = decode_account(data + bytes(9))  # room after it, ignored
    assert found == name
    assert_within(decoded, value)
    assert encode_account(name, decoded) == data
    assert decode_account_as(name, data, exact=True) == decoded


def test_an_account_of_another_kind_or_key_is_refused():
    data = encode_account(*ACCOUNTS[0])
    with pytest.raises(LayoutError, match="a GenesisAccountV2, not a UnlockedBucketV2"):
        decode_account_as("UnlockedBucketV2", data)
    with pytest.raises(LayoutError, match="no Genesis V2 account has key 1"):
        decode_account(b"\x01" + data[1:])
    with pytest.raises(LayoutError, match="bytes left over"):
        decode_account(data + b"\x00", exact=True)


INIT = initialize_v2(
    {"fundingMode": 0, "totalSupplyBaseToken": 1, "name": "n", "uri": "u", "symbol": "s"},
    {"baseMint": MINT},
    payer=PAYER,
    signers={"baseMint"},
)


@pytest.mark.parametrize(
    ("program", "data", "count", "error"),
    [
        (pdas.TOKEN_PROGRAM, bytes(INIT.data), 16, "is not the Genesis program"),
        (GENESIS_PROGRAM, b"", 16, "no data"),
        (GENESIS_PROGRAM, b"\x00", 16, "instruction 0: initializeV1, not described here"),
        (GENESIS_PROGRAM, b"\xc8", 16, "instruction 200: unknown to the client"),
        (GENESIS_PROGRAM, bytes(INIT.data)[:-1], 16, "needs 1 bytes"),
        (GENESIS_PROGRAM, bytes(INIT.data) + b"\x00", 16, "1 bytes left over"),
        (GENESIS_PROGRAM, bytes(INIT.data), 15, "15 accounts, 16 needed"),
        (GENESIS_PROGRAM, bytes(INIT.data), 17, "1 accounts more than it takes"),
    ],
)
def test_what_is_not_an_instruction_here_is_refused_with_its_reason(program, data, count, error):
    keys = [meta.pubkey for meta in INIT.accounts] + [OTHER]
    with pytest.raises(LayoutError, match=error):
        decode_instruction(program, data, keys[:count])


def test_defaults_resolve_to_the_addresses_they_name():
    roles = decode_instruction(INIT.program_id, bytes(INIT.data), INIT.accounts).accounts
    genesis = Pubkey.find_program_address([b"genesis_v2", bytes(MINT), b"\0\0"], GENESIS_PROGRAM)
    assert roles["genesisAccount"] == genesis[0]
    ata = Pubkey.find_program_address(
        [bytes(genesis[0]), bytes(pdas.TOKEN_PROGRAM), bytes(pdas.NATIVE_MINT)],
        pdas.ASSOCIATED_TOKEN_PROGRAM,
    )[0]
    assert roles["genesisQuoteTokenAccount"] == ata
    assert roles["authoritySourceBaseTokenAccount"] == pdas.associated_token_address(PAYER, MINT)
    assert roles["authority"] is None  # not given: the program id stands in
    assert INIT.accounts[1].is_signer and INIT.accounts[5].is_signer


def test_a_build_says_what_it_lacks_or_does_not_know():
    with pytest.raises(LayoutError, match="needs the genesisAccount account"):
        finalize_v2({}, {"baseMint": MINT}, payer=PAYER)
    with pytest.raises(LayoutError, match="authority is the identity: give one"):
        finalize_v2({}, {"genesisAccount": GENESIS, "baseMint": MINT})
    with pytest.raises(LayoutError, match=r"not one that may sign: \['mint'\]"):
        finalize_v2({}, {"mint": MINT}, payer=PAYER)
    with pytest.raises(LayoutError, match="not one that may sign"):
        build_instruction("swapBondingCurveV2", {}, TRADING, payer=PAYER, signers={"bucket"})
    with pytest.raises(LayoutError, match="fundingMode: missing"):
        initialize_v2({"totalSupplyBaseToken": 1}, {"baseMint": MINT}, payer=PAYER)
    with pytest.raises(LayoutError, match="no Genesis instruction 'initializeV9'"):
        build_instruction("initializeV9", {}, {})


def test_instruction_problems_names_the_flags_an_account_lacks():
    metas = list(INIT.accounts)
    metas[0] = AccountMeta(metas[0].pubkey, False, False)
    metas[5] = AccountMeta(metas[5].pubkey, False, True)
    weakened = Instruction(INIT.program_id, bytes(INIT.data), metas)
    assert instruction_problems(weakened) == [
        "initializeV2: genesisAccount is not writable",
        "initializeV2: payer does not sign",
    ]
    assert instruction_problems(INIT) == []


def test_the_metadata_account_is_padded_as_the_program_pads_it():
    value = METADATA[0]
    assert len(value["name"]) == 32 and len(value["uri"]) == 200
    assert m.unpuff(value["symbol"]) == "CURVE"
    data = m.encode_metadata(value)
    assert len(data) == m.MAX_METADATA_LEN == 679
    assert_within(m.decode_metadata(data), value)
    with pytest.raises(LayoutError, match="more than 10"):
        m.puff_out({**value, "symbol": "ELEVENCHARS"})
    with pytest.raises(LayoutError, match="not a MetadataV1"):
        m.decode_metadata(b"\x06" + data[1:])


def test_errors_are_described_by_code():
    assert describe(0) == "InvalidSystemProgram: Invalid System Program"
    assert describe(9999) == "custom error 9999 (not a Genesis one)"
