"""Register's checks of a launch against the chain (the spec's four: the genesis account
exists, every bucket matches its allocation, the metadata matches, the mint's supply,
decimals and authorities), read in the Genesis program's layouts."""

from __future__ import annotations

from typing import Any

from solders.pubkey import Pubkey

import launchops.genesis.accounts as ga
from launchops.api import programs as p
from launchops.api.models import ErrorDetail, LaunchConfig
from launchops.genesis.codec import LayoutError
from launchops.genesis.metadata import decode_metadata, unpuff
from launchops.genesis.pdas import TOKEN_PROGRAM, find_metadata
from launchops.sandbox import bonding
from launchops.sandbox.chain import Chain
from launchops.sandbox.genesis_create import GenesisPlan, plan


def _mismatch(path: str, message: str) -> ErrorDetail:
    return ErrorDetail(path=path.split("."), message=message)


def read(chain: Chain, key: Pubkey, name: str) -> dict[str, Any] | None:
    """Account `key` in the Genesis layout `name`, or None (missing, or not that)."""
    found = chain.account(key)
    if found is None or found.owner != p.GENESIS_PROGRAM:
        return None
    try:
        return ga.decode_account_as(name, bytes(found.data))
    except LayoutError:
        return None


def creator_of(chain: Chain, genesis: Pubkey) -> Pubkey | None:
    """The authority of a genesis account: who created the launch."""
    found = read(chain, genesis, "GenesisAccountV2")
    return found["authority"] if found else None


def mismatches(
    chain: Chain, config: LaunchConfig, genesis: Pubkey, mint: Pubkey, traded: bool
) -> list[ErrorDetail]:
    account = read(chain, genesis, "GenesisAccountV2")
    if account is None:
        return [_mismatch("genesisAccount", "not a Genesis V2 account")]
    launch = plan(config, account["authority"], mint)
    problems = _genesis_mismatches(account, launch, config)
    problems += _mint_mismatches(chain, config, launch)
    problems += _bucket_mismatches(chain, launch, traded)
    first = bonding.first_buy(config, launch)
    if first is not None and not traded:  # swaps since moved the curve's balances
        problems += bonding.mismatches(first, lambda key: _token_amount(chain, key))
    return problems


def _genesis_mismatches(
    account: dict[str, Any], launch: GenesisPlan, config: LaunchConfig
) -> list[ErrorDetail]:
    problems = []
    if account["baseMint"] != launch.mint:
        problems.append(_mismatch("mint", f"the genesis account's mint is {account['baseMint']}"))
    if account["totalSupplyBaseToken"] != launch.total:
        said = f"supply is {account['totalSupplyBaseToken']} base units, expected {launch.total}"
        problems.append(_mismatch("launch.supply", said))
    if account["quoteMint"] != launch.quote_mint:
        problems.append(_mismatch("launch.quoteMint", f"quote mint is {account['quoteMint']}"))
    if config.finalize and not account["finalized"]:
        problems.append(_mismatch("launch.finalize", "the genesis account is not finalized"))
    return problems


def _mint_mismatches(chain: Chain, config: LaunchConfig, launch: GenesisPlan) -> list[ErrorDetail]:
    """Where the mint (decimals, supply, authorities) and its metadata differ."""
    mint_account = chain.account(launch.mint)
    if mint_account is None or mint_account.owner != TOKEN_PROGRAM:
        return [_mismatch("mint", "mint account not found")]
    state = p.read_mint(bytes(mint_account.data))
    problems: list[ErrorDetail] = []
    if state.decimals != config.decimals:
        said = f"mint has {state.decimals} decimals, launch says {config.decimals}"
        problems.append(_mismatch("launch.decimals", said))
    if state.supply != launch.total:
        said = f"mint supply is {state.supply} base units, expected {launch.total}"
        problems.append(_mismatch("launch.supply", said))
    if config.finalize and state.mint_authority is not None:
        said = "a finalized launch's mint authority must be revoked"
        problems.append(_mismatch("mint.mintAuthority", said))
    if config.finalize and state.freeze_authority is not None:
        problems.append(_mismatch("mint.freezeAuthority", "the mint must have no freeze authority"))
    return problems + _metadata_mismatches(chain, config, launch)


def _metadata_mismatches(
    chain: Chain, config: LaunchConfig, launch: GenesisPlan
) -> list[ErrorDetail]:
    found = chain.account(find_metadata(launch.mint)[0])
    if found is None:
        return [_mismatch("metadata", "the mint's metadata account is not found")]
    metadata = decode_metadata(bytes(found.data))
    problems = []
    for field, want in (("name", config.name), ("symbol", config.symbol), ("uri", config.image)):
        got = unpuff(metadata[field])
        if got != want:
            where = f"launch.{'image' if field == 'uri' else field}"
            problems.append(
                _mismatch(where, f"on-chain metadata {field} is {got!r}, expected {want!r}")
            )
    return problems


def _bucket_mismatches(chain: Chain, launch: GenesisPlan, traded: bool) -> list[ErrorDetail]:
    """Where a bucket is missing, another launch's, or allocated another amount."""
    problems: list[ErrorDetail] = []
    for bucket in launch.buckets:
        where = f"allocations.{bucket.name}"
        found = read(chain, bucket.address, bucket.kind)
        if found is None:
            problems.append(_mismatch(where, f"bucket account {bucket.address} not found"))
            continue
        base = found["bucket"]
        if base["genesis"] != launch.genesis:
            problems.append(_mismatch(where, "bucket belongs to another genesis account"))
        elif base["baseTokenAllocation"] != bucket.allocation:
            held = base["baseTokenAllocation"]
            said = f"bucket holds {held} base units, expected {bucket.allocation}"
            problems.append(_mismatch(where, said))
    return problems


def _token_amount(chain: Chain, key: Pubkey) -> int | None:
    account = chain.account(key)
    return p.read_token_account(bytes(account.data)).amount if account else None


__all__ = ["creator_of", "mismatches", "read"]
