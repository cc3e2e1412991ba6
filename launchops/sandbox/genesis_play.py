"""The Genesis program's create, as the sandbox plays it (LiteSVM cannot run Genesis):
each instruction decoded with `launchops.genesis` (the JS client's layouts), the checks
the program makes, then its effects as account writes, all or nothing per transaction
(`launchops.sandbox.play`).

- `initializeV2`: the mint (classic SPL Token; the genesis account its mint and freeze
  authority), its Token Metadata account (the authority its update authority), the
  genesis account, its escrow holding the whole supply, its quote token account, and
  the fee wallet's quote token account where it is missing; all paid by the payer.
- `add...BucketV2` (the full and `Base` forms): the bucket in its layout, its supply
  counted against the genesis account's, and its quote token account (a Raydium
  bucket's: its bucket signer's). `...Extensions` and `set...Behaviors` complete it.
- `finalizeV2`: only once every token is allocated. `revokeV2`: the mint's authorities.

The base tokens stay in the genesis account's escrow: a bucket's balance is a number in
its account, as in the program. Refusals are the program's errors (`Custom(code)`, the
codes of the JS client's `errors/genesis`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from solders.pubkey import Pubkey

import launchops.genesis.accounts as ga
from launchops.genesis.codec import LayoutError
from launchops.genesis.errors import BY_NAME
from launchops.genesis.instructions import ADDS_BUCKET, decode_instruction
from launchops.genesis.metadata import TokenStandard, encode_metadata, puff_out
from launchops.genesis.pdas import (
    FEE_WALLET,
    GENESIS_PROGRAM,
    TOKEN_METADATA_PROGRAM,
    TOKEN_PROGRAM,
    associated_token_address,
    find_bucket_v2,
    find_genesis_account_v2,
    find_metadata,
    find_raydium_bucket_signer,
)
from launchops.sandbox.play import Call, Play, Refused
from launchops.sandbox.token_state import (
    ACCOUNT_SIZE,
    is_native,
    mint_data,
    token_account_data,
    with_mint_authorities,
)

Roles = dict[str, Pubkey | None]
Handler = Callable[[Play, dict[str, Any], Roles], None]


def refuse(name: str, detail: str = "") -> Refused:
    """The program's error `name` (its code from the client's error table)."""
    code = BY_NAME[name]
    return Refused({"Custom": code}, f"{name}{': ' + detail if detail else ''}")


def expect(condition: bool, name: str, detail: str = "") -> None:
    if not condition:
        raise refuse(name, detail)


def signed(play: Play, *keys: Pubkey | None) -> None:
    for key in keys:
        if key is None or key not in play.signers:
            raise Refused("MissingRequiredSignature", f"{key} must sign")


def role(roles: Roles, name: str) -> Pubkey:
    key = roles.get(name)
    if key is None:
        raise refuse("InvalidAccount", f"{name} is missing")
    return key


# ── token accounts ──────────────────────────────────────────────────────────


def make_token_account(
    play: Play, key: Pubkey, mint: Pubkey, owner: Pubkey, amount: int, payer: Pubkey
) -> None:
    """`owner`'s associated token account of `mint`, holding `amount` (by CPI)."""
    expect(key == associated_token_address(owner, mint), "InvalidAtaDerivation", str(key))
    native = play.chain.rent_exempt(ACCOUNT_SIZE) if is_native(mint) else None
    play.make(key, TOKEN_PROGRAM, token_account_data(mint, owner, amount, native), payer)


def ensure_token_account(
    play: Play, key: Pubkey, mint: Pubkey, owner: Pubkey, payer: Pubkey
) -> None:
    if play.account(key) is None:
        make_token_account(play, key, mint, owner, 0, payer)


# ── the genesis account ─────────────────────────────────────────────────────


def read_genesis(play: Play, key: Pubkey) -> dict[str, Any]:
    found = play.account(key)
    if found is None or found.owner != GENESIS_PROGRAM:
        raise refuse("InvalidGenesisAccount", f"{key} is not a genesis account")
    try:
        return ga.decode_account_as("GenesisAccountV2", bytes(found.data))
    except LayoutError as exc:
        raise refuse("InvalidGenesisAccount", str(exc)) from None


def write_genesis(play: Play, key: Pubkey, value: dict[str, Any]) -> None:
    play.set_data(key, ga.encode_account("GenesisAccountV2", value))


def as_authority(play: Play, genesis: dict[str, Any], roles: Roles) -> None:
    """The genesis account's authority, signing."""
    authority = role(roles, "authority")
    expect(authority == genesis["authority"], "InvalidAuthority", str(authority))
    signed(play, authority)


def _initialize(play: Play, args: dict[str, Any], roles: Roles) -> None:
    payer, authority, mint = role(roles, "payer"), role(roles, "authority"), role(roles, "baseMint")
    quote = role(roles, "quoteMint")
    signed(play, payer, authority, mint)
    genesis, bump = find_genesis_account_v2(mint, args["genesisIndex"])
    expect(roles["genesisAccount"] == genesis, "InvalidGenesisAccountDerivation")
    expect(roles["metadata"] == find_metadata(mint)[0], "InvalidMetadataAccount")
    expect(roles["feeWallet"] == FEE_WALLET, "InvalidFeeWallet")
    expect(roles["baseTokenProgram"] == TOKEN_PROGRAM, "InvalidSplTokenProgram")
    expect(roles["tokenMetadataProgram"] == TOKEN_METADATA_PROGRAM, "InvalidTokenMetadataProgram")
    total = args["totalSupplyBaseToken"]
    expect(total > 0, "InvalidAmount", "no supply")
    play.make(mint, TOKEN_PROGRAM, mint_data(genesis, total, args["decimals"], genesis), payer)
    metadata = {
        "updateAuthority": authority,
        "mint": mint,
        "name": args["name"],
        "symbol": args["symbol"],
        "uri": args["uri"],
        "tokenStandard": TokenStandard.Fungible,
    }
    try:
        written = encode_metadata(puff_out(metadata))
    except LayoutError as exc:
        raise refuse("InvalidMetadataAccount", str(exc)) from None
    play.make(find_metadata(mint)[0], TOKEN_METADATA_PROGRAM, written, payer)
    account = {
        "bump": bump,
        "index": args["genesisIndex"],
        "authority": authority,
        "baseMint": mint,
        "quoteMint": quote,
        "totalSupplyBaseToken": total,
        "fundingMode": args["fundingMode"],
    }
    play.make(genesis, GENESIS_PROGRAM, ga.encode_account("GenesisAccountV2", account), payer)
    make_token_account(play, role(roles, "genesisBaseTokenAccount"), mint, genesis, total, payer)
    make_token_account(play, role(roles, "genesisQuoteTokenAccount"), quote, genesis, 0, payer)
    ensure_token_account(play, role(roles, "feeQuoteTokenAccount"), quote, FEE_WALLET, payer)


def _finalize(play: Play, args: dict[str, Any], roles: Roles) -> None:
    key = role(roles, "genesisAccount")
    genesis = read_genesis(play, key)
    as_authority(play, genesis, roles)
    expect(not genesis["finalized"], "GenesisAccountAlreadyFinalized")
    expect(roles["baseMint"] == genesis["baseMint"], "InvalidMintForGenesisAccount")
    allocated, total = genesis["totalAllocatedSupplyBaseToken"], genesis["totalSupplyBaseToken"]
    expect(allocated == total, "TotalSupplyNotFullyAllocated", f"{allocated} of {total}")
    write_genesis(play, key, {**genesis, "finalized": True})


def _revoke(play: Play, args: dict[str, Any], roles: Roles) -> None:
    key = role(roles, "genesisAccount")
    genesis = read_genesis(play, key)
    as_authority(play, genesis, roles)
    mint = role(roles, "baseMint")
    expect(mint == genesis["baseMint"], "InvalidMintForGenesisAccount")
    held = play.account(mint)
    expect(held is not None, "InvalidMintForGenesisAccount")
    assert held is not None
    data = bytes(held.data)
    authority = None if args["revokeMintAuthority"] else key
    freeze = None if args["revokeFreezeAuthority"] else key
    play.set_data(mint, with_mint_authorities(data, authority, freeze))


# ── buckets ─────────────────────────────────────────────────────────────────


def bucket_base(
    genesis_key: Pubkey, genesis: dict[str, Any], index: int, bump: int, allocation: int
) -> dict[str, Any]:
    return {
        "bump": bump,
        "bucketIndex": index,
        "genesis": genesis_key,
        "baseTokenAllocation": allocation,
        "baseTokenBalance": allocation,
        "quoteTokenBalance": 0,
        "fee": 0,
        "baseMint": genesis["baseMint"],
        "quoteMint": genesis["quoteMint"],
    }


def _fields(args: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: args[name] for name in names if name in args}


def _launch_pool(args: dict[str, Any], roles: Roles) -> dict[str, Any]:
    return {
        **_fields(args, *_WINDOWS),
        "extensions": {},
        "endBehaviors": args.get("endBehaviors", []),
    }


def _presale(args: dict[str, Any], roles: Roles) -> dict[str, Any]:
    return {
        **_fields(args, "allocationQuoteTokenCap", *_WINDOWS),
        "extensions": {},
        "endBehaviors": args.get("endBehaviors", []),
    }


def _unlocked(args: dict[str, Any], roles: Roles) -> dict[str, Any]:
    recipient = role(roles, "recipient")
    return {
        "recipient": recipient,
        **_fields(args, "claimStartCondition", "claimEndCondition"),
        "extensions": {},
    }


def _streamflow(args: dict[str, Any], roles: Roles) -> dict[str, Any]:
    return {
        "recipient": role(roles, "recipient"),
        **_fields(args, "config", "lockStartCondition", "lockEndCondition"),
        "extensions": {},
    }


def _raydium(args: dict[str, Any], roles: Roles) -> dict[str, Any]:
    from launchops.genesis.types import never

    signer, bump = find_raydium_bucket_signer(role(roles, "bucket"))
    return {
        "bucketSignerBump": bump,
        "bucketSigner": signer,
        "startCondition": args["startCondition"],
        "graduateCondition": never(),
        "poolState": Pubkey.default(),
        "extensions": {},
        "endBehaviors": args.get("endBehaviors", []),
    }


def _curve(args: dict[str, Any], roles: Roles) -> dict[str, Any]:
    extensions: dict[str, Any] = {}
    if args.get("firstBuyQuoteAmount"):
        extensions["firstBuy"] = {
            "buyer": role(roles, "firstBuyer"),
            "amount": args["firstBuyQuoteAmount"],
        }
    if args.get("creatorFee"):
        extensions["creatorFee"] = {"wallet": args["creatorFee"]["wallet"]}
    return {
        **_fields(args, "swapStartCondition", "swapEndCondition"),
        "extensions": extensions,
        "endBehaviors": args.get("endBehaviors", []),
        "constantProductParams": {
            "virtualSol": args["virtualSol"],
            "virtualTokens": args["virtualTokens"],
        },
    }


_WINDOWS = (
    "depositStartCondition",
    "depositEndCondition",
    "claimStartCondition",
    "claimEndCondition",
)
# An add instruction: what its bucket's data holds beyond the base (its kind: ADDS_BUCKET).
FIELDS: dict[str, Callable[[dict[str, Any], Roles], dict[str, Any]]] = {
    "LaunchPoolBucketV2": _launch_pool,
    "PresaleBucketV2": _presale,
    "UnlockedBucketV2": _unlocked,
    "StreamflowBucketV2": _streamflow,
    "RaydiumCpmmBucketV2": _raydium,
    "BondingCurveBucketV2": _curve,
}
BUCKETS = {name: (kind, FIELDS[kind]) for name, kind in ADDS_BUCKET.items()}


def _add_bucket(name: str) -> Handler:
    kind, fields = BUCKETS[name]

    def add(play: Play, args: dict[str, Any], roles: Roles) -> None:
        genesis_key = role(roles, "genesisAccount")
        genesis = read_genesis(play, genesis_key)
        expect(not genesis["finalized"], "GenesisAccountFinalized")
        as_authority(play, genesis, roles)
        payer = role(roles, "payer")
        signed(play, payer)
        expect(roles.get("baseMint") in (None, genesis["baseMint"]), "InvalidMintForGenesisAccount")
        expect(roles["quoteMint"] == genesis["quoteMint"], "InvalidQuoteMintForGenesisAccount")
        bucket, bump = find_bucket_v2(kind, genesis_key, args["bucketIndex"])
        expect(roles["bucket"] == bucket, "InvalidBucketAccountDerivation")
        if kind == "BondingCurveBucketV2" and args.get("firstBuyQuoteAmount"):
            signed(play, role(roles, "firstBuyer"))
        allocation = args["baseTokenAllocation"]
        allocated = genesis["totalAllocatedSupplyBaseToken"] + allocation
        expect(allocated <= genesis["totalSupplyBaseToken"], "SupplyBelowAllocated")
        base = bucket_base(genesis_key, genesis, args["bucketIndex"], bump, allocation)
        value = {"bucket": base, **fields(args, roles)}
        play.make(bucket, GENESIS_PROGRAM, ga.encode_account(kind, value), payer)
        owner = value.get("bucketSigner", bucket)
        quote_account = (
            roles.get("bucketSignerQuoteTokenAccount") or roles["bucketQuoteTokenAccount"]
        )
        make_token_account(play, quote_account, genesis["quoteMint"], owner, 0, payer)
        count = genesis["bucketCount"] + 1
        write_genesis(
            play,
            genesis_key,
            {**genesis, "totalAllocatedSupplyBaseToken": allocated, "bucketCount": count},
        )

    return add


def read_bucket(play: Play, key: Pubkey, kind: str, genesis_key: Pubkey) -> dict[str, Any]:
    """Bucket `key` of kind `kind`, of the genesis account `genesis_key`."""
    found = play.account(key)
    if found is None or found.owner != GENESIS_PROGRAM:
        raise refuse("InvalidBucket", f"{key} is not a bucket")
    try:
        value = ga.decode_account_as(kind, bytes(found.data))
    except LayoutError as exc:
        raise refuse("InvalidBucket", str(exc)) from None
    expect(value["bucket"]["genesis"] == genesis_key, "InvalidGenesisAccountForBucket")
    return value


def _completing(kind: str, complete: Callable[[dict[str, Any], dict[str, Any]], None]) -> Handler:
    """An instruction that completes a bucket before the launch is final."""

    def handle(play: Play, args: dict[str, Any], roles: Roles) -> None:
        genesis_key = role(roles, "genesisAccount")
        genesis = read_genesis(play, genesis_key)
        expect(not genesis["finalized"], "GenesisAccountFinalized")
        as_authority(play, genesis, roles)
        key = role(roles, "bucket")
        value = read_bucket(play, key, kind, genesis_key)
        complete(value, args)
        for behavior in value.get("endBehaviors", []):
            destination = behavior.get("destinationBucket")
            held = play.account(destination) if destination is not None else None
            expect(
                held is not None and held.owner == GENESIS_PROGRAM,
                "InvalidBucket",
                f"end behavior to {destination}",
            )
        play.resize(key, ga.encode_account(kind, value), role(roles, "payer"))

    return handle


def _extensions(value: dict[str, Any], args: dict[str, Any]) -> None:
    for extension in args["extensions"]:
        kind = extension["__kind"]
        field = kind[0].lower() + kind[1:]
        content = {k: v for k, v in extension.items() if k != "__kind"}
        value["extensions"][field] = content.get(field, content)


def _behaviors(value: dict[str, Any], args: dict[str, Any]) -> None:
    value["endBehaviors"] = [{**b, "processed": False} for b in args["endBehaviors"]]


COMPLETING = {
    "addLaunchPoolBucketV2Extensions": ("LaunchPoolBucketV2", _extensions),
    "addPresaleBucketV2Extensions": ("PresaleBucketV2", _extensions),
    "addBondingCurveBucketV2Extensions": ("BondingCurveBucketV2", _extensions),
    "setLaunchPoolBucketV2Behaviors": ("LaunchPoolBucketV2", _behaviors),
    "setPresaleBucketV2Behaviors": ("PresaleBucketV2", _behaviors),
    "setBondingCurveBucketV2Behaviors": ("BondingCurveBucketV2", _behaviors),
}
HANDLERS: dict[str, Handler] = {
    "initializeV2": _initialize,
    "finalizeV2": _finalize,
    "revokeV2": _revoke,
    **{name: _add_bucket(name) for name in BUCKETS},
    **{name: _completing(*how) for name, how in COMPLETING.items()},
}


def play_genesis(play: Play, call: Call) -> None:
    """One Genesis instruction, played: decoded, checked, applied."""
    try:
        name, args, roles = decode_instruction(call.program, call.data, call.accounts)
    except LayoutError as exc:
        raise Refused("InvalidInstructionData", str(exc)) from None
    handler = HANDLERS.get(name)
    if handler is None:
        raise refuse("InvalidInstruction", f"{name} is not played by the sandbox")
    handler(play, args, roles)


__all__ = ["HANDLERS", "play_genesis", "read_bucket", "read_genesis", "refuse"]
