"""launchops.genesis against the public JS client's own code (`@metaplex-foundation/genesis`
0.35.0, with `mpl-token-metadata` and `mpl-toolbox`; tests/interop/js/genesis_layouts.mjs).
For every instruction, the client's builder and ours make the same data, byte for byte,
and the same accounts in the same order with the same flags, defaults resolved; every
account and the Token Metadata account serialize to the same bytes; the PDAs, the custom
errors and the discriminators are the client's. Both ways: what the client wrote decodes
here to what was given. One node process for the whole module.
"""

from __future__ import annotations

import json
from enum import IntEnum
from typing import Any

import pytest
from solders.instruction import AccountMeta
from solders.pubkey import Pubkey

from launchops.genesis import accounts, errors, instructions, metadata, pdas, raydium
from launchops.genesis.instruction_spec import SIGNS
from tests.genesis.account_samples import ACCOUNTS, METADATA
from tests.genesis.samples import (
    BUCKET,
    GENESIS,
    INSTRUCTIONS,
    MINT,
    OTHER,
    Ix,
    assert_within,
)
from tests.interop.test_js_bonding_curve import node
from tests.interop.test_js_client import READY, REQUIRED

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        not READY and not REQUIRED,
        reason="node or the npm packages are missing (npm ci in tests/interop/js)",
    ),
]
SAFE = 2**53 - 1  # beyond it, a JS number loses digits: a BigInt then


def to_js(value: Any) -> Any:
    """A Python value as the JSON the script revives into the JS client's values."""
    if isinstance(value, dict):
        return {k: to_js(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_js(v) for v in value]
    if isinstance(value, Pubkey):
        return str(value)
    if isinstance(value, bytes):
        return {"$bytes": value.hex()}
    if isinstance(value, IntEnum):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE:
        return {"$big": str(value)}
    return value


def completed(spec: instructions.InstructionSpec, args: dict[str, Any]) -> dict[str, Any]:
    """`args` with every field the layout has (padding and options included)."""
    full = spec.decode(spec.encode(args))
    if spec.remaining:
        full[spec.remaining] = args.get(spec.remaining, [])
    return full


def ix_case(ix: Ix) -> dict[str, Any]:
    spec = instructions.SPECS[ix.name]
    signers = [role for role in ix.accounts if spec.roles[role].signer == SIGNS] + ix.signers
    return {
        "ix": ix.name,
        "args": to_js(ix.args if ix.plain else completed(spec, ix.args)),
        "accounts": {role: str(address) for role, address in ix.accounts.items()},
        "signers": signers,
        "payer": str(ix.payer),
        "identity": str(ix.identity) if ix.identity else None,
    }


def full_account(name: str, value: dict[str, Any]) -> dict[str, Any]:
    return accounts.BY_NAME[name].decode(accounts.encode_account(name, value))


PDAS = [
    ("findGenesisAccountV2Pda", {"baseMint": MINT, "genesisIndex": 0}),
    ("findGenesisAccountV2Pda", {"baseMint": MINT, "genesisIndex": 513}),
    *(
        (f"find{kind}Pda", {"genesisAccount": GENESIS, "bucketIndex": 7})
        for kind in pdas.BUCKET_PREFIXES
    ),
    *((f"find{kind}Pda", {"bucket": BUCKET, "recipient": OTHER}) for kind in pdas.DEPOSIT_PREFIXES),
    ("findRaydiumBucketSignerPda", {"bucket": BUCKET}),
    ("findRaydiumSignerPda", {}),
    ("findMetadataPda", {"mint": MINT}),
    ("findAssociatedTokenPda", {"mint": MINT, "owner": GENESIS}),
]


def ours(pda: str, seeds: dict[str, Any]) -> tuple[Pubkey, int] | Pubkey:
    kind = pda.removeprefix("find").removesuffix("Pda")
    if kind == "GenesisAccountV2":
        return pdas.find_genesis_account_v2(seeds["baseMint"], seeds["genesisIndex"])
    if kind in pdas.BUCKET_PREFIXES:
        return pdas.find_bucket_v2(kind, seeds["genesisAccount"], seeds["bucketIndex"])
    if kind in pdas.DEPOSIT_PREFIXES:
        return pdas.find_deposit_v2(kind, seeds["bucket"], seeds["recipient"])
    if kind == "RaydiumBucketSigner":
        return pdas.find_raydium_bucket_signer(seeds["bucket"])
    if kind == "Metadata":
        return pdas.find_metadata(seeds["mint"])
    if kind == "AssociatedToken":
        return pdas.associated_token_address(seeds["owner"], seeds["mint"])
    return pdas.find_raydium_signer()


# deriveRaydiumPDAsV2's options: each network, with the creator-fee config or not.
RAYDIUM_OPTIONS: list[dict[str, Any]] = [
    {},
    {"env": "devnet"},
    {"creatorFee": True},
    {"env": "devnet", "creatorFee": True, "quoteMint": OTHER},
]

CASES: dict[str, dict[str, Any]] = {
    **{f"{ix.name}-{i}": ix_case(ix) for i, ix in enumerate(INSTRUCTIONS)},
    **{
        f"{n}-{i}": {"account": n, "value": to_js(full_account(n, v))}
        for i, (n, v) in enumerate(ACCOUNTS)
    },
    **{
        f"metadata-{i}": {
            "metadata": to_js(metadata.METADATA.decode(metadata.encode_metadata(v, space=None)))
        }
        for i, v in enumerate(METADATA)
    },
    **{f"pda-{i}": {"pda": p, "seeds": to_js(s)} for i, (p, s) in enumerate(PDAS)},
    **{
        f"raydium-{i}": {
            "raydium": {"baseMint": str(MINT), "bucket": str(BUCKET), "options": to_js(options)}
        }
        for i, options in enumerate(RAYDIUM_OPTIONS)
    },
    "errors": {"errors": True},
    "discriminators": {"discriminators": True},
}


@pytest.fixture(scope="module")
def js(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What the JS client makes of every case, from one node process."""
    path = tmp_path_factory.mktemp("genesis") / "cases.json"
    path.write_text(json.dumps(list(CASES.values())))
    return dict(zip(CASES, node("genesis_layouts.mjs", f"@{path}"), strict=True))  # type: ignore[arg-type]


def flags(metas: list[AccountMeta]) -> list[list[Any]]:
    return [[str(m.pubkey), m.is_signer, m.is_writable] for m in metas]


@pytest.mark.parametrize(
    "index", range(len(INSTRUCTIONS)), ids=lambda i: f"{INSTRUCTIONS[i].name}-{i}"
)
def test_an_instruction_is_the_js_clients_both_ways(js, index):
    ix = INSTRUCTIONS[index]
    theirs = js[f"{ix.name}-{index}"]
    built = instructions.build_instruction(
        ix.name, ix.args, ix.accounts, payer=ix.payer, identity=ix.identity, signers=ix.signers
    )
    assert theirs["programId"] == str(pdas.GENESIS_PROGRAM) == str(built.program_id)
    assert bytes(built.data).hex() == theirs["data"]
    assert flags(list(built.accounts)) == theirs["accounts"]

    keys = [Pubkey.from_string(address) for address, _, _ in theirs["accounts"]]
    name, args, roles = instructions.decode_instruction(
        pdas.GENESIS_PROGRAM, bytes.fromhex(theirs["data"]), keys
    )
    assert name == ix.name
    assert_within(args, ix.args)
    assert_within(roles, ix.accounts)
    spec = instructions.SPECS[ix.name]
    for account, key in zip(spec.accounts, keys, strict=False):
        assert roles[account.name] in (key, None)
    assert instructions.instruction_problems(built) == []


@pytest.mark.parametrize("index", range(len(ACCOUNTS)), ids=lambda i: f"{ACCOUNTS[i][0]}-{i}")
def test_an_account_is_the_js_clients_both_ways(js, index):
    name, value = ACCOUNTS[index]
    theirs = js[f"{name}-{index}"]
    data = accounts.encode_account(name, value)
    assert data.hex() == theirs["data"]
    if theirs["size"] is not None:
        assert len(data) == theirs["size"] == accounts.BY_NAME[name].size
    found, decoded = accounts.decode_account(bytes.fromhex(theirs["data"]), exact=True)
    assert found == name
    assert_within(decoded, {**value, "key": accounts.BY_NAME[name].fields[0].default})


@pytest.mark.parametrize("index", range(len(METADATA)))
def test_the_metadata_account_is_the_js_clients_both_ways(js, index):
    value = METADATA[index]
    theirs = bytes.fromhex(js[f"metadata-{index}"]["data"])
    assert metadata.encode_metadata(value, space=None) == theirs
    padded = metadata.encode_metadata(value)
    assert len(padded) == metadata.MAX_METADATA_LEN and padded.startswith(theirs)
    assert_within(metadata.decode_metadata(padded), value)


def test_the_pdas_are_the_js_clients(js):
    for index, (pda, seeds) in enumerate(PDAS):
        found = ours(pda, seeds)
        theirs = js[f"pda-{index}"]
        if isinstance(found, Pubkey):
            assert str(found) == theirs[0], pda
        else:
            assert [str(found[0]), found[1]] == theirs, pda


@pytest.mark.parametrize("index", range(len(RAYDIUM_OPTIONS)))
def test_the_raydium_pool_accounts_are_the_js_clients(js, index):
    options = RAYDIUM_OPTIONS[index]
    found = raydium.derive_raydium_pool(
        MINT,
        BUCKET,
        options.get("quoteMint", pdas.NATIVE_MINT),
        options.get("env", "mainnet"),
        options.get("creatorFee", False),
    )
    theirs = js[f"raydium-{index}"]
    assert {k: str(v) for k, v in found.items()} == {k: theirs[k] for k in found}
    spec = instructions.SPECS["graduateToRaydiumCpmmV2"]
    assert set(found) <= set(spec.roles)


def test_the_errors_are_the_js_clients(js):
    theirs = {code: (name, message) for code, name, message in js["errors"]}
    assert theirs == errors.GENESIS_ERRORS
    assert errors.describe(3) == "NumericalOverflow: Numerical overflow"


def test_the_discriminators_are_the_js_clients(js):
    theirs = js["discriminators"]
    assert {spec.name: spec.discriminator for spec in instructions.SPECS.values()} == {
        name: theirs[name] for name in instructions.SPECS
    }
    assert {name: code for code, name in instructions.CLIENT_NAMES.items()} == theirs
