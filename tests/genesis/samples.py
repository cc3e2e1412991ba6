"""Values for the Genesis layouts' tests: every instruction, with values that are not the
defaults (every condition's variant, options that hold something, several end behaviors)
and with the defaults, its accounts given or left to the builder to resolve."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from solders.keypair import Keypair
from solders.pubkey import Pubkey

from launchops.genesis.codec import variant
from launchops.genesis.pdas import TOKEN_PROGRAM
from launchops.genesis.types import BucketTimes, SwapDirection


def key(n: int) -> Pubkey:
    """A fixed key per number: the same in every run."""
    return Keypair.from_seed(bytes([n]) * 32).pubkey()


PAYER, IDENTITY, MINT, GENESIS, BUCKET, OTHER = (key(n) for n in range(1, 7))
BIG = 2**64 - 2  # a u64 beyond what a JS number holds exactly
NOW = 1_767_225_600

CONDITIONS = [
    variant("TimeAbsolute", time=NOW, triggeredTimestamp=NOW + 5),
    variant("TimeRelative", bucketTime=BucketTimes.Graduate, timeOffset=-3600, bucket=OTHER),
    variant("Never"),
    variant("Always", triggeredTimestamp=0),
    variant("Triggered"),
    variant("Uninitialized"),
]
BEHAVIORS = [
    variant("SendQuoteTokenPercentage", percentageBps=2500, destinationBucket=OTHER),
    variant("BaseTokenRollover", processed=True, percentageBps=10000, destinationBucket=BUCKET),
    variant("SendStartPrice", destinationBucket=OTHER),
    variant("ReallocateBaseTokensOnFailure", percentageBps=1, destinationBucket=OTHER),
    variant("None", processed=True),
]
LINEAR = {
    "slopeBps": -25,
    "interceptBps": 2500,
    "maxBps": 10000,
    "startCondition": CONDITIONS[1],
    "duration": 172800,
    "reserved": bytes(range(64)),
}
SCHEDULE = {
    "startCondition": CONDITIONS[0],
    "duration": 31536000,
    "period": 7883982,
    "cliffCondition": CONDITIONS[2],
    "cliffAmountBps": 1000,
}
ALLOWLIST_INIT = {
    "enabled": True,
    "merkleTreeHeight": 12,
    "merkleRoot": bytes(range(32, 64)),
    "endTime": NOW + 100,
    "quoteCap": BIG,
}
STEPPED = {"startTimes": [NOW + i for i in range(5)], "limit": [10**9 * i for i in range(5)]}
STREAMFLOW = {
    "startTime": NOW,
    "period": 86400,
    "amountPerPeriod": 1234,
    "cliff": NOW + 86400,
    "cliffAmount": 5,
    "streamName": b"Team".ljust(64, b"\0"),
    "withdrawFrequency": 60,
    "cancelableBySender": True,
    "cancelableByRecipient": False,
    "automaticWithdrawal": True,
    "transferableBySender": False,
    "transferableByRecipient": True,
    "canTopup": False,
    "pausable": True,
    "canUpdateRate": False,
}
DEPOSIT_CLAIM = {
    "depositStartCondition": CONDITIONS[0],
    "depositEndCondition": CONDITIONS[1],
    "claimStartCondition": CONDITIONS[3],
    "claimEndCondition": CONDITIONS[2],
}


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


def lp_options() -> dict[str, Any]:
    return {
        "backendSigner": {"signer": OTHER},
        "depositPenalty": LINEAR,
        "withdrawPenalty": {**LINEAR, "startCondition": CONDITIONS[4]},
        "bonusSchedule": {**LINEAR, "maxBps": 1},
        "depositLimit": {"limit": 5 * 10**9},
        "allowlist": ALLOWLIST_INIT,
        "claimSchedule": SCHEDULE,
        "minimumDepositAmount": {"amount": 1},
        "minimumQuoteTokenThreshold": {"amount": 250 * 10**9},
    }


def presale_options() -> dict[str, Any]:
    return {
        "backendSigner": {"signer": OTHER},
        "depositLimit": {"limit": 7},
        "depositCooldown": {"duration": 60},
        "perCooldownDepositLimit": {"limit": 8},
        "allowlist": ALLOWLIST_INIT,
        "steppedDepositLimit": STEPPED,
        "claimSchedule": SCHEDULE,
        "minimumDepositAmount": {"amount": 9},
    }


def _extensions(options: dict[str, Any]) -> list[dict[str, Any]]:
    """One extension per option, each a variant named as the option."""
    return [variant(k[0].upper() + k[1:], **{k: v}) for k, v in options.items()]


ADDING = {"genesisAccount": GENESIS, "baseMint": MINT}
EXTENDING = {"genesisAccount": GENESIS, "bucket": BUCKET, "authority": IDENTITY}
GIVEN_BASE = {
    **ADDING,
    "bucket": BUCKET,
    "quoteMint": OTHER,
    "bucketQuoteTokenAccount": key(20),
    "quoteTokenProgram": TOKEN_PROGRAM,
    "associatedTokenProgram": key(21),
}
RAYDIUM_OPTIONS = {
    "backendSigner": {"signer": OTHER},
    "lpLockSchedule": SCHEDULE,
    "creatorFee": {"wallet": IDENTITY},
}
CURVE = {
    "swapStartCondition": CONDITIONS[3],
    "swapEndCondition": CONDITIONS[4],
    "virtualSol": 55 * 10**9,
    "virtualTokens": 464555052790349,
}
TRADING = {"genesisAccount": GENESIS, "bucket": BUCKET, "baseMint": MINT}
POOL = "poolState ammConfig poolAuthority lpMint baseVault quoteVault createPoolFee"
GRADUATING = {r: key(30 + i) for i, r in enumerate(f"{POOL} observationState permission".split())}
GRADUATING |= {**TRADING, "raydiumProgram": key(40)}

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
    Ix(
        "addLaunchPoolBucketV2",
        {
            "bucketIndex": 2,
            "baseTokenAllocation": 300_000_000 * 10**6,
            **DEPOSIT_CLAIM,
            **lp_options(),
            "endBehaviors": BEHAVIORS,
        },
        {**ADDING, "authority": IDENTITY},
    ),
    Ix("addLaunchPoolBucketV2", {**DEPOSIT_CLAIM}, dict(ADDING)),
    Ix("addLaunchPoolBucketV2Base", {"bucketIndex": 1, **DEPOSIT_CLAIM}, dict(ADDING)),
    Ix("addLaunchPoolBucketV2Extensions", {"extensions": _extensions(lp_options())}, EXTENDING),
    Ix(
        "addPresaleBucketV2",
        {
            "bucketIndex": 4,
            "allocationQuoteTokenCap": BIG,
            **DEPOSIT_CLAIM,
            **presale_options(),
            "endBehaviors": BEHAVIORS[:2],
        },
        {**ADDING, "quoteMint": OTHER},
    ),
    Ix("addPresaleBucketV2Base", {"allocationQuoteTokenCap": 5, **DEPOSIT_CLAIM}, dict(ADDING)),
    Ix("setLaunchPoolBucketV2Behaviors", {"endBehaviors": BEHAVIORS}, EXTENDING),
    Ix("setPresaleBucketV2Behaviors", {"endBehaviors": BEHAVIORS[:1]}, EXTENDING),
    Ix("setBondingCurveBucketV2Behaviors", {"endBehaviors": []}, EXTENDING),
    Ix("addPresaleBucketV2Extensions", {"extensions": _extensions(presale_options())}, EXTENDING),
    Ix(
        "addUnlockedBucketV2",
        {
            "bucketIndex": 1,
            "claimStartCondition": CONDITIONS[1],
            "claimEndCondition": CONDITIONS[2],
            "backendSigner": {"signer": IDENTITY},
        },
        {**ADDING, "recipient": OTHER},
    ),
    Ix(
        "addUnlockedBucketV2Base",
        {
            "bucketIndex": 0,
            "baseTokenAllocation": 7,
            "claimStartCondition": CONDITIONS[0],
            "claimEndCondition": CONDITIONS[5],
        },
        {**GIVEN_BASE, "recipient": OTHER},
    ),
    Ix(
        "addUnlockedBucketV2Extensions",
        {"extensions": [variant("BackendSigner", backendSigner={"signer": OTHER})]},
        EXTENDING,
    ),
    Ix(
        "addStreamflowBucketV2",
        {
            "bucketIndex": 3,
            "config": STREAMFLOW,
            "lockStartCondition": CONDITIONS[0],
            "lockEndCondition": CONDITIONS[2],
            "backendSigner": {"signer": OTHER},
            "streamflowAuthority": IDENTITY,
        },
        {**ADDING, "recipient": OTHER, "authority": IDENTITY},
    ),
    Ix(
        "addRaydiumCpmmBucketV2",
        {
            "bucketIndex": 0,
            "baseTokenAllocation": 282051282051283,
            **RAYDIUM_OPTIONS,
            "lpClaimAuthority": OTHER,
            "startCondition": CONDITIONS[1],
            "deferPoolCreationCost": True,
            "endBehaviors": BEHAVIORS[2:4],
        },
        dict(ADDING),
    ),
    Ix(
        "addRaydiumCpmmBucketV2Base",
        {"bucketIndex": 5, "baseTokenAllocation": 1, "startCondition": CONDITIONS[3]},
        {**ADDING, "authority": IDENTITY},
    ),
    Ix("addRaydiumCpmmBucketV2Extensions", {"extensions": _extensions(RAYDIUM_OPTIONS)}, EXTENDING),
    Ix(
        "addConstantProductBondingCurveBucketV2",
        {
            "bucketIndex": 0,
            "baseTokenAllocation": 717948717948717,
            **CURVE,
            "backendSigner": {"signer": OTHER},
            "firstBuyQuoteAmount": 10**9,
            "creatorFee": {"wallet": IDENTITY},
            "endBehaviors": [BEHAVIORS[0]],
        },
        {**ADDING, "firstBuyer": OTHER},
    ),
    Ix(
        "addConstantProductBondingCurveBucketV2",
        {"baseTokenAllocation": 5, **CURVE},
        dict(ADDING),
    ),
    Ix(
        "addConstantProductBondingCurveBucketV2Base",
        {"bucketIndex": 1, "baseTokenAllocation": 5, **CURVE},
        GIVEN_BASE,
    ),
    Ix(
        "addBondingCurveBucketV2Extensions",
        {
            "extensions": [
                variant("BackendSigner", backendSigner={"signer": OTHER}),
                variant("FirstBuy", buyer=IDENTITY, amount=BIG),
                variant("CreatorFee", creatorFee={"wallet": OTHER}),
            ]
        },
        {**EXTENDING, "firstBuyer": IDENTITY},
    ),
    Ix(
        "swapBondingCurveV2",
        {"swapDirection": SwapDirection.Buy, "amount": 10**9, "minAmountOutScaled": 0},
        dict(TRADING),
        plain=True,
    ),
    Ix(
        "swapBondingCurveV2",
        {"swapDirection": SwapDirection.Sell, "amount": BIG, "minAmountOutScaled": 77},
        {**TRADING, "baseTokenOwner": IDENTITY, "quoteTokenOwner": OTHER, "backendSigner": key(9)},
        ["baseTokenOwner"],
        plain=True,
    ),
    Ix(
        "depositLaunchPoolV2",
        {"amountQuoteToken": 10**9},
        dict(TRADING),
        identity=IDENTITY,
        plain=True,
    ),
    Ix(
        "depositLaunchPoolV2",
        {"amountQuoteToken": BIG, "proof": [key(50), key(51), key(52)]},
        {**TRADING, "recipient": OTHER, "backendSigner": key(9), "depositor": IDENTITY},
        plain=True,
    ),
    Ix("claimLaunchPoolV2", {}, dict(TRADING), plain=True),
    Ix(
        "claimLaunchPoolV2",
        {},
        {**TRADING, "recipient": OTHER, "backendSigner": key(9)},
        plain=True,
    ),
    Ix("claimUnlockedV2", {}, dict(TRADING), plain=True),
    Ix("claimUnlockedV2", {}, {**TRADING, "recipient": OTHER, "quoteMint": key(10)}, plain=True),
    Ix("claimBondingCurveCreatorFeeV2", {}, {**TRADING, "creatorFeeWallet": OTHER}, plain=True),
    Ix("graduateToRaydiumCpmmV2", {}, GRADUATING, plain=True),
    Ix(
        "graduateToRaydiumCpmmV2",
        {},
        {**GRADUATING, "backendSigner": key(9), "payer": PAYER, "lpMint": key(41)},
        plain=True,
    ),
    Ix("claimRaydiumCreatorFeeV2", {}, {**TRADING, "creatorFeeWallet": OTHER}, plain=True),
    Ix(
        "claimRaydiumCreatorFeeV2",
        {},
        {**TRADING, "creatorFeeWallet": OTHER, "quoteMint": key(10), "bucketSigner": key(11)},
        plain=True,
    ),
    Ix(
        "revokeV2",
        {"revokeMintAuthority": True, "revokeFreezeAuthority": False},
        {"genesisAccount": GENESIS, "baseMint": MINT, "baseTokenProgram": TOKEN_PROGRAM},
        identity=IDENTITY,
    ),
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
