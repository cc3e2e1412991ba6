"""The Genesis V2 instructions a launch uses (create_instructions.py, after_instructions.py):
builders that return a solders `Instruction` from args and the accounts given by role,
the others resolved as the JS client's builders resolve them, and `decode_instruction`,
which reads one back (args, and accounts by role) or says why it cannot.

Args are dicts of plain values, as the JS client takes them (see codec.py); a builder
needs `payer` (and `identity`, else the payer) wherever the JS builder would take the
umi context's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, NamedTuple

from solders.instruction import AccountMeta, Instruction
from solders.pubkey import Pubkey

from launchops.genesis.after_instructions import AFTER
from launchops.genesis.codec import LayoutError
from launchops.genesis.create_instructions import CREATE
from launchops.genesis.instruction_spec import InstructionSpec, build, flag_problems, read_accounts
from launchops.genesis.pdas import GENESIS_PROGRAM

SPECS: dict[str, InstructionSpec] = {spec.name: spec for spec in (*CREATE, *AFTER)}
# The bucket each add instruction makes: its account's kind (a key of BUCKET_PREFIXES).
ADDS_BUCKET = {
    "addLaunchPoolBucketV2": "LaunchPoolBucketV2",
    "addLaunchPoolBucketV2Base": "LaunchPoolBucketV2",
    "addPresaleBucketV2": "PresaleBucketV2",
    "addPresaleBucketV2Base": "PresaleBucketV2",
    "addUnlockedBucketV2": "UnlockedBucketV2",
    "addUnlockedBucketV2Base": "UnlockedBucketV2",
    "addStreamflowBucketV2": "StreamflowBucketV2",
    "addRaydiumCpmmBucketV2": "RaydiumCpmmBucketV2",
    "addRaydiumCpmmBucketV2Base": "RaydiumCpmmBucketV2",
    "addConstantProductBondingCurveBucketV2": "BondingCurveBucketV2",
    "addConstantProductBondingCurveBucketV2Base": "BondingCurveBucketV2",
}
BY_DISCRIMINATOR = {spec.discriminator: spec for spec in SPECS.values()}

# Every instruction of the JS client, by discriminator (0 to 106, then 255 emitEvent):
# what an instruction not described here is, for the error that says so.
_CLIENT_NAMES = """
    initializeV1 addLaunchPoolBucketV1 depositLaunchPoolV1 withdrawLaunchPoolV1
    updateLaunchPoolDepositV1 claimLaunchPoolV1 addStreamflowBucketV1 lockStreamflowV1
    addUnlockedBucketV1 claimUnlockedV1 storeInflowsV1 fundOutflowsV1 addPumpBucketV1
    graduateToPumpV1 addMeteoraBucketV1 graduateToMeteoraV1 finalizeV1
    addDistributionBucketV1 fundDistributionV1 addPresaleBucketV1 depositPresaleV1
    updatePresaleDepositV1 withdrawPresaleV1 claimPresaleV1 withdrawUnsoldPresaleV1
    feeOverrideV1 addVaultBucketV1 depositVaultV1 withdrawVaultV1
    addConstantProductBondingCurveBucketV1 swapBondingCurveV1 swapVaultToBondingCurveV1
    setBondingCurvePausedStateV1 refundVaultDepositV1 addAuctionBucketV1 placeAuctionBidV1
    claimAuctionTokensV1 claimAuctionRefundV1 closeAuctionBidV1 addRaydiumCpmmBucketV1
    graduateToRaydiumCpmmV1 updatePresaleBucketCapsV1 initializeV2 triggerConditionsV2
    triggerBehaviorsV2 revokeV2 finalizeV2 feeOverrideV2 setLaunchTypeV2 updateGenesisV2
    addPresaleBucketV2 depositPresaleV2 claimPresaleV2 addUnlockedBucketV2 claimUnlockedV2
    addRaydiumCpmmBucketV2 graduateToRaydiumCpmmV2 claimRaydiumCpmmLpTokensV2
    collectRaydiumCpmmFeesV2 addVaultBucketV2 depositVaultV2 withdrawVaultV2
    swapVaultToBondingCurveV2 refundVaultDepositV2 addConstantProductBondingCurveBucketV2
    swapBondingCurveV2 setBondingCurvePausedStateV2 addLaunchPoolBucketV2
    depositLaunchPoolV2 withdrawLaunchPoolV2 claimLaunchPoolV2 refundLaunchPoolV2
    addLaunchPoolBucketV2Base addLaunchPoolBucketV2Extensions
    removeLaunchPoolBucketV2Extensions setLaunchPoolBucketV2Behaviors
    updateLaunchPoolBucketV2 addPresaleBucketV2Base addPresaleBucketV2Extensions
    removePresaleBucketV2Extensions setPresaleBucketV2Behaviors updatePresaleBucketV2
    addVaultBucketV2Base addVaultBucketV2Extensions removeVaultBucketV2Extensions
    setVaultBucketV2Behaviors updateVaultBucketV2
    addConstantProductBondingCurveBucketV2Base addBondingCurveBucketV2Extensions
    removeBondingCurveBucketV2Extensions setBondingCurveBucketV2Behaviors
    updateBondingCurveBucketV2 addRaydiumCpmmBucketV2Base addRaydiumCpmmBucketV2Extensions
    removeRaydiumCpmmBucketV2Extensions setRaydiumCpmmBucketV2Behaviors
    updateRaydiumCpmmBucketV2 addUnlockedBucketV2Base addUnlockedBucketV2Extensions
    removeUnlockedBucketV2Extensions setUnlockedBucketV2Behaviors updateUnlockedBucketV2
    addStreamflowBucketV2 lockStreamflowV2 collectRaydiumCpmmFeesWithCreatorFeeV2
    claimBondingCurveCreatorFeeV2 claimRaydiumCreatorFeeV2
"""
CLIENT_NAMES = dict(enumerate(_CLIENT_NAMES.split()))
CLIENT_NAMES[255] = "emitEvent"


class DecodedInstruction(NamedTuple):
    """A Genesis instruction read back: its name, its args, its accounts by role."""

    name: str
    args: dict[str, Any]
    accounts: dict[str, Pubkey | None]


def spec_of(name: str) -> InstructionSpec:
    """The instruction named `name` (as the JS client names it)."""
    try:
        return SPECS[name]
    except KeyError:
        raise LayoutError(f"no Genesis instruction {name!r} here") from None


def build_instruction(
    name: str,
    args: Mapping[str, Any],
    accounts: Mapping[str, Pubkey],
    *,
    payer: Pubkey | None = None,
    identity: Pubkey | None = None,
    signers: Collection[str] = (),
) -> Instruction:
    """The instruction `name` for `args` and `accounts` (by role; the others as the
    JS builder resolves them); `signers` names the accounts that may sign and do."""
    spec = spec_of(name)
    return build(spec, args, accounts, payer=payer, identity=identity, signers=signers)


def _keys(accounts: Sequence[Pubkey | AccountMeta]) -> list[Pubkey]:
    return [a.pubkey if isinstance(a, AccountMeta) else a for a in accounts]


def decode_instruction(
    program_id: Pubkey, data: bytes, accounts: Sequence[Pubkey | AccountMeta]
) -> DecodedInstruction:
    """The Genesis instruction `data` and `accounts` make; a `LayoutError` that says
    why when they make none (another program, an instruction not described here, data
    too short or too long, too few accounts or too many)."""
    if program_id != GENESIS_PROGRAM:
        raise LayoutError(f"{program_id} is not the Genesis program")
    if not data:
        raise LayoutError("an instruction with no data")
    spec = BY_DISCRIMINATOR.get(data[0])
    if spec is None:
        known = CLIENT_NAMES.get(data[0])
        what = f"{known}, not described here" if known else "unknown to the client"
        raise LayoutError(f"Genesis instruction {data[0]}: {what}")
    args = spec.decode(bytes(data))
    roles, extra = read_accounts(spec, _keys(accounts))
    if spec.remaining:
        args[spec.remaining] = extra
    return DecodedInstruction(spec.name, args, roles)


def instruction_problems(instruction: Instruction) -> list[str]:
    """What a Genesis instruction's account flags lack against its spec (an account to
    write not writable, one that must sign not signing); [] when none. A `LayoutError`
    when it does not decode."""
    metas = list(instruction.accounts)
    name = decode_instruction(instruction.program_id, bytes(instruction.data), metas).name
    return flag_problems(SPECS[name], metas)


def builder(name: str) -> Callable[..., Instruction]:
    """`build_instruction` for one instruction: `(args, accounts, **options)`."""
    spec_of(name)

    def build_one(
        args: Mapping[str, Any], accounts: Mapping[str, Pubkey], **options: Any
    ) -> Instruction:
        return build_instruction(name, args, accounts, **options)

    build_one.__name__ = build_one.__qualname__ = name
    build_one.__doc__ = f"The {name} instruction (see build_instruction)."
    return build_one


initialize_v2 = builder("initializeV2")
finalize_v2 = builder("finalizeV2")
add_launch_pool_bucket_v2 = builder("addLaunchPoolBucketV2")
add_launch_pool_bucket_v2_base = builder("addLaunchPoolBucketV2Base")
add_launch_pool_bucket_v2_extensions = builder("addLaunchPoolBucketV2Extensions")
add_presale_bucket_v2 = builder("addPresaleBucketV2")
add_presale_bucket_v2_base = builder("addPresaleBucketV2Base")
add_presale_bucket_v2_extensions = builder("addPresaleBucketV2Extensions")
add_unlocked_bucket_v2 = builder("addUnlockedBucketV2")
add_unlocked_bucket_v2_base = builder("addUnlockedBucketV2Base")
add_unlocked_bucket_v2_extensions = builder("addUnlockedBucketV2Extensions")
add_streamflow_bucket_v2 = builder("addStreamflowBucketV2")
add_raydium_cpmm_bucket_v2 = builder("addRaydiumCpmmBucketV2")
add_raydium_cpmm_bucket_v2_base = builder("addRaydiumCpmmBucketV2Base")
add_raydium_cpmm_bucket_v2_extensions = builder("addRaydiumCpmmBucketV2Extensions")
add_constant_product_bonding_curve_bucket_v2 = builder("addConstantProductBondingCurveBucketV2")
add_constant_product_bonding_curve_bucket_v2_base = builder(
    "addConstantProductBondingCurveBucketV2Base"
)
add_bonding_curve_bucket_v2_extensions = builder("addBondingCurveBucketV2Extensions")
swap_bonding_curve_v2 = builder("swapBondingCurveV2")
deposit_launch_pool_v2 = builder("depositLaunchPoolV2")
claim_launch_pool_v2 = builder("claimLaunchPoolV2")
claim_unlocked_v2 = builder("claimUnlockedV2")
claim_bonding_curve_creator_fee_v2 = builder("claimBondingCurveCreatorFeeV2")
graduate_to_raydium_cpmm_v2 = builder("graduateToRaydiumCpmmV2")
revoke_v2 = builder("revokeV2")
