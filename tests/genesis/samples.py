"""Values for the Genesis layouts' tests: every instruction, with values that are not the
defaults and with the defaults, its accounts given or left to the builder to resolve."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from solders.keypair import Keypair
from solders.pubkey import Pubkey


def key(n: int) -> Pubkey:
    """A fixed key per number: the same in every run."""
    return Keypair.from_seed(bytes([n]) * 32).pubkey()


PAYER, IDENTITY, MINT, GENESIS, BUCKET, OTHER = (key(n) for n in range(1, 7))
BIG = 2**64 - 2  # a u64 beyond what a JS number holds exactly
NOW = 1_767_225_600


@dataclass
class Ix:
    """One instruction to build: `plain` when the JS builder gets the args as they are
    (its own defaults fill the rest), else as Python completes them."""

    name: str
    args: dict[str, Any]
    accounts: dict[str, Pubkey]
    signers: list[str] = field(default_factory=list)
    identity: Pubkey | None = None
    plain: bool = False
    payer: Pubkey = PAYER


INSTRUCTIONS = [
    Ix(
        "initializeV2",
        {
            "fundingMode": 0,
            "totalSupplyBaseToken": 10**15,
            "name": "Tok",
            "uri": "u",
            "symbol": "T",
        },
        {"baseMint": MINT},
        ["baseMint"],
        plain=True,
    ),
    Ix(
        "initializeV2",
        {
            "decimals": 6,
            "genesisIndex": 3,
            "fundingMode": 1,
            "totalSupplyBaseToken": BIG,
            "name": "Ünïcode ✓",
            "uri": "https://gateway.irys.xyz/abc",
            "symbol": "UNI",
        },
        {"baseMint": MINT, "authority": IDENTITY, "quoteMint": OTHER},
        plain=True,
    ),
    Ix(
        "finalizeV2",
        {},
        {"genesisAccount": GENESIS, "baseMint": MINT},
        identity=IDENTITY,
        plain=True,
    ),
    Ix("finalizeV2", {}, {"genesisAccount": GENESIS, "baseMint": MINT, "authority": OTHER}),
]


def assert_within(found: Any, given: Any, path: str = "") -> None:
    """`found` holds `given`: every key a dict of `given` names, with the same value."""
    if isinstance(given, dict):
        assert isinstance(found, dict), f"{path}: {found!r}"
        for name, value in given.items():
            assert name in found, f"{path}.{name}: missing"
            assert_within(found[name], value, f"{path}.{name}")
    elif isinstance(given, list):
        assert isinstance(found, list) and len(found) == len(given), f"{path}: {found!r}"
        for index, (one, other) in enumerate(zip(found, given, strict=True)):
            assert_within(one, other, f"{path}[{index}]")
    else:
        assert found == given, f"{path}: {found!r} != {given!r}"
