"""Launches in the sandbox: create answers the transactions the real service builds, in
the Genesis program's words (`genesis_create`, `genesis_tx`), partly signed by the fresh
mint; register reads the state they made back from the chain (the genesis account, its
buckets, the mint and its metadata, in the program's layouts) and checks it against the
launch.

The first transaction carries the sandbox's signature (the new mint); later ones need
only the creator's (and a first buyer's, where the curve names one).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from solders.hash import Hash
from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import Message, to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.allocations import LaunchpoolAllocation, PresaleAllocation
from launchops.api.amounts import base_units, whole_tokens
from launchops.api.conditions import TimeAbsolute
from launchops.api.fields import iso_utc
from launchops.api.launches import MECHANIC_NAMES
from launchops.api.models import ErrorDetail, LaunchConfig
from launchops.errors import LaunchRejected
from launchops.sandbox import bonding, compromise
from launchops.sandbox.chain import Chain
from launchops.sandbox.compromise import Attack
from launchops.sandbox.formats import AnyMessage
from launchops.sandbox.genesis_create import GenesisPlan, plan
from launchops.sandbox.genesis_tx import create_units
from launchops.sandbox.genesis_verify import mismatches

PACKET_BYTES = 1232  # the most a transaction may be, signatures and all


def build_create(
    chain: Chain, config: LaunchConfig, agent: Pubkey | None = None, attack: Attack | None = None
) -> dict[str, Any]:
    """The transactions of a launch, partly signed, and what the service records of it.
    For an agent (its Core asset), the agent's wallet is the creator and every instruction
    is wrapped in an mpl-core Execute by the owner (`launch.publicKey`), who pays. An
    `attack`: the answer of a compromised service (`compromise`)."""
    mint = Keypair()
    creator = p.agent_wallet(agent) if agent else config.public_key
    launch = plan(config, creator, mint.pubkey())
    _refuse_unallocated(config)
    blockhash, last_valid = chain.blockhash_for_new()
    units = create_units(config, launch)
    if attack == "genesis_args":
        units = compromise.renamed(units)
    if agent is not None:
        owner = config.public_key
        units = [[p.execute(agent, owner, owner, ix, None) for ix in unit] for unit in units]
    groups = pack(units, config.public_key)
    buy = bonding.first_buy(config, launch)
    if buy is not None:  # a transaction of its own, once the launch is final
        groups.append(bonding.instructions(buy, launch))
    if attack is not None:
        groups = compromise.tampered(attack, groups, config.public_key, mint.pubkey())
        last_valid += compromise.EXPIRY_LIE if attack == "expiry" else 0
    messages = chain.build(config.public_key, groups, blockhash)
    if attack == "fee_payer":
        messages[-1] = chain.build(compromise.STRANGER, groups[-1:], blockhash)[0]
    transactions = [bytes(partly_signed(messages[0], [mint]))]
    transactions += [bytes(partly_signed(m, [])) for m in messages[1:]]
    return {
        "transactions": transactions,
        "blockhash": str(blockhash),
        "last_valid_block_height": last_valid,
        "mint": str(mint.pubkey()),
        "genesis": str(launch.genesis),
    }


def _refuse_unallocated(config: LaunchConfig) -> None:
    total = config.supply * 10**config.decimals
    allocated = sum(base_units(b.supply, config.decimals) for b in config.buckets())
    if config.finalize and allocated != total:
        raise LaunchRejected(
            "Validation failed",
            [
                ErrorDetail(
                    path=["launch", "allocations"],
                    message=f"a finalized launch must allocate its whole supply: "
                    f"{whole_tokens(allocated, config.decimals)} of {config.supply} tokens "
                    "allocated",
                )
            ],
        )


def pack(units: list[list[Instruction]], payer: Pubkey) -> list[list[Instruction]]:
    """The units of instructions in order, as many to a transaction as the packet allows
    (a unit is never split)."""
    groups: list[list[Instruction]] = []
    for unit in units:
        if groups and _size([*groups[-1], *unit], payer) <= PACKET_BYTES:
            groups[-1] += unit
        else:
            groups.append(list(unit))
    return groups


def _size(instructions: list[Instruction], payer: Pubkey) -> int:
    message = Message.new_with_blockhash(instructions, payer, Hash.default())
    signatures = message.header.num_required_signatures
    return 1 + 64 * signatures + len(bytes(message)) + 1  # a v0 message's version byte


def partly_signed(message: AnyMessage, keypairs: list[Keypair]) -> VersionedTransaction:
    """Signed by `keypairs`; every other required signature left empty for the caller."""
    data = to_bytes_versioned(message)
    ours = {k.pubkey(): k for k in keypairs}
    signers = message.account_keys[: message.header.num_required_signatures]
    signatures = [ours[k].sign_message(data) if k in ours else Signature.default() for k in signers]
    return VersionedTransaction.populate(message, signatures)


def verify_on_chain(
    chain: Chain, config: LaunchConfig, genesis: Pubkey, mint: Pubkey, traded: bool = False
) -> None:
    """The spec's four register checks, read from the chain; raises with every mismatch."""
    account = chain.account(genesis)
    if account is None or account.owner != p.GENESIS_PROGRAM:
        raise LaunchRejected("Genesis account not found on-chain")
    problems = mismatches(chain, config, genesis, mint, traded)
    if problems:
        raise LaunchRejected("On-chain state does not match the launch", problems)


def launch_plan(chain: Chain, config: LaunchConfig, genesis: Pubkey, mint: Pubkey) -> GenesisPlan:
    """The plan of a launch created (its creator from its genesis account)."""
    from launchops.sandbox.genesis_verify import creator_of

    return plan(config, creator_of(chain, genesis) or config.public_key, mint)


def listing(
    config: LaunchConfig, genesis: str, launch_page: str, registered_at: datetime
) -> dict[str, Any]:
    """The launch as GET /tokens/{mint} shows it (status is computed when read)."""
    start, end = _window(config)
    return {
        "launchPage": launch_page,
        "mechanic": MECHANIC_NAMES[config.type],
        "genesisAddress": genesis,
        "spotlight": False,
        "startTime": iso_utc(start) if start else None,
        "endTime": iso_utc(end) if end else None,
        "status": "upcoming",
        "heroUrl": None,
        "graduatedAt": None,
        "lastActivityAt": iso_utc(registered_at),
        "type": config.type,
    }


def status_now(launch: dict[str, Any], now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    start = launch.get("startTime")
    end = launch.get("endTime")
    if start and now < datetime.fromisoformat(start.replace("Z", "+00:00")):
        return "upcoming"
    if end and now >= datetime.fromisoformat(end.replace("Z", "+00:00")):
        return "ended"
    return "live"


def _window(config: LaunchConfig) -> tuple[datetime | None, datetime | None]:
    for allocation in config.allocations:
        if isinstance(allocation, LaunchpoolAllocation):
            settings: Any = allocation.launchpool_v2
        elif isinstance(allocation, PresaleAllocation):
            settings = allocation.presale_v2
        else:
            continue
        start = settings.deposit_start_condition
        end = settings.deposit_end_condition
        return (
            start.timestamp if isinstance(start, TimeAbsolute) else None,
            end.timestamp if isinstance(end, TimeAbsolute) else None,
        )
    return None, None


def socials(config: LaunchConfig) -> dict[str, str]:
    links = config.external_links
    if links is None:
        return {}
    found = {}
    if links.twitter:
        found["x"] = _handle_url(links.twitter, "https://x.com/")
    if links.telegram:
        found["telegram"] = _handle_url(links.telegram, "https://t.me/")
    return found


def _handle_url(value: str, base: str) -> str:
    return value if value.startswith(("http://", "https://")) else base + value.lstrip("@")


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"
