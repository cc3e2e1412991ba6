"""Launches in the sandbox: create builds real, partly signed transactions; register reads
the state they made back from the chain and checks it against the launch.

What the transactions make (all real SPL Token-2022 state): the mint with the launch's
decimals, on-chain metadata (name, symbol, image), the genesis account (owned by the
Genesis program id), one token account per bucket holding that bucket's supply, and, for
a finalized launch, a mint whose authority is revoked. The first transaction carries the
sandbox's signatures (new mint, genesis account); later ones need only the creator's.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from solders.instruction import Instruction
from solders.keypair import Keypair
from solders.message import to_bytes_versioned
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import CreateAccountParams, create_account
from solders.transaction import VersionedTransaction
from spl.token.instructions import (
    AuthorityType,
    initialize_mint2,
    set_authority,
)
from spl.token.models import InitializeMint2Params, SetAuthorityParams

from launchops.api import programs as p
from launchops.api.allocations import (
    LaunchpoolAllocation,
    PresaleAllocation,
)
from launchops.api.amounts import base_units, whole_tokens
from launchops.api.conditions import (
    TimeAbsolute,
)
from launchops.api.fields import iso_utc
from launchops.api.launches import MECHANIC_NAMES
from launchops.api.models import ErrorDetail, LaunchConfig
from launchops.errors import LaunchRejected
from launchops.sandbox import bonding
from launchops.sandbox.chain import Chain
from launchops.sandbox.formats import AnyMessage

BUCKETS_PER_TX = 4


@dataclass(frozen=True)
class Bucket:
    name: str
    kind: str
    index: int
    owner: Pubkey  # the bucket PDA
    account: Pubkey  # its token account
    amount: int  # base units


def plan_buckets(config: LaunchConfig, genesis: Pubkey, mint: Pubkey) -> list[Bucket]:
    """Each allocation and LP flow as a bucket: PDA by type and index, its token account,
    and what it holds (a bonding curve's, less what its first buy took)."""
    counters: dict[bytes, int] = {}
    buckets = []
    buy = bonding.first_buy(config, genesis, mint)
    for source in config.buckets():
        prefix = p.BUCKET_PREFIX[source.type]
        index = counters.get(prefix, 0)
        counters[prefix] = index + 1
        owner = p.bucket_pda(source.type, genesis, index)
        amount = base_units(source.supply, config.decimals)
        if buy is not None and source.type == "bondingCurveV2":
            amount -= buy.tokens
        buckets.append(
            Bucket(
                name=source.name,
                kind=source.type,
                index=index,
                owner=owner,
                account=p.token_account_address(owner, mint),
                amount=amount,
            )
        )
    return buckets


def build_create(chain: Chain, config: LaunchConfig, agent: Pubkey | None = None) -> dict[str, Any]:
    """The transactions of a launch, partly signed, and what the service records of it.
    For an agent (its Core asset), the agent's wallet is the creator and every instruction
    is wrapped in an mpl-core Execute by the owner (`launch.publicKey`), who pays."""
    total = config.supply * 10**config.decimals
    mint, genesis = Keypair(), Keypair()
    buckets = plan_buckets(config, genesis.pubkey(), mint.pubkey())
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
    blockhash, last_valid = chain.blockhash_for_new()
    creator = p.agent_wallet(agent) if agent else config.public_key
    first = _mint_and_genesis(chain, config, creator, mint.pubkey(), genesis.pubkey())
    tails = _bucket_funding(config, creator, buckets, mint.pubkey(), genesis.pubkey())
    groups = [first, *(ixs for ixs in tails if ixs)]
    if agent is not None:
        owner = config.public_key
        groups = [[p.execute(agent, owner, owner, ix, None) for ix in ixs] for ixs in groups]
    messages = chain.build(config.public_key, groups, blockhash)
    transactions = [bytes(partly_signed(messages[0], [mint, genesis]))]
    transactions += [bytes(partly_signed(m, [])) for m in messages[1:]]
    return {
        "transactions": transactions,
        "blockhash": str(blockhash),
        "last_valid_block_height": last_valid,
        "mint": str(mint.pubkey()),
        "genesis": str(genesis.pubkey()),
    }


def _mint_and_genesis(
    chain: Chain, config: LaunchConfig, creator: Pubkey, mint: Pubkey, genesis: Pubkey
) -> list[Instruction]:
    """The first transaction's work: the mint with its metadata, and the genesis account."""
    mint_space = p.METADATA_POINTER_MINT_SIZE
    full_size = mint_space + p.metadata_size(config.name, config.symbol, config.image)
    return [
        create_account(
            CreateAccountParams(
                from_pubkey=creator,
                to_pubkey=mint,
                lamports=chain.rent_exempt(full_size),
                space=mint_space,
                owner=p.TOKEN_2022_PROGRAM,
            )
        ),
        p.metadata_pointer_initialize(mint, creator),
        initialize_mint2(
            InitializeMint2Params(
                program_id=p.TOKEN_2022_PROGRAM,
                mint=mint,
                decimals=config.decimals,
                mint_authority=creator,
                freeze_authority=None,
            )
        ),
        p.metadata_initialize(mint, creator, creator, config.name, config.symbol, config.image),
        create_account(
            CreateAccountParams(
                from_pubkey=creator,
                to_pubkey=genesis,
                lamports=chain.rent_exempt(p.GENESIS_ACCOUNT_SPACE),
                space=p.GENESIS_ACCOUNT_SPACE,
                owner=p.GENESIS_PROGRAM,
            )
        ),
    ]


def _bucket_funding(
    config: LaunchConfig, creator: Pubkey, buckets: list[Bucket], mint: Pubkey, genesis: Pubkey
) -> list[list[Instruction]]:
    """The later transactions' work: each bucket's token account, minted its supply,
    BUCKETS_PER_TX buckets a transaction; then a bonding curve's first buy, alone; a finalized
    launch's last one revokes the mint."""
    bucket_ixs = [
        bonding.mint_into(creator, mint, b.owner, b.account, b.amount, config.decimals)
        for b in buckets
    ]
    groups = [bucket_ixs[i : i + BUCKETS_PER_TX] for i in range(0, len(bucket_ixs), BUCKETS_PER_TX)]
    tails = [[ix for pair in group for ix in pair] for group in groups] or [[]]
    buy = bonding.first_buy(config, genesis, mint)
    if buy is not None:  # a transaction of its own: the curve exists before it lands
        tails.append(bonding.instructions(buy, config, creator, genesis, mint))
    if config.finalize:
        tails[-1].append(
            set_authority(
                SetAuthorityParams(
                    program_id=p.TOKEN_2022_PROGRAM,
                    account=mint,
                    authority=AuthorityType.MINT_TOKENS,
                    current_authority=creator,
                    new_authority=None,
                )
            )
        )
    return tails


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
    mint_account = chain.account(mint)
    if mint_account is None or mint_account.owner != p.TOKEN_2022_PROGRAM:
        raise LaunchRejected(
            "On-chain state does not match the launch",
            [ErrorDetail(path=["mint"], message="mint account not found")],
        )
    problems = _mint_mismatches(p.read_mint(bytes(mint_account.data)), config)
    problems += _bucket_mismatches(chain, config, genesis, mint, traded)
    buy = bonding.first_buy(config, genesis, mint)
    if buy is not None and not traded:  # swaps since moved the curve's balances
        problems += bonding.mismatches(buy, lambda key: _token_amount(chain, key))
    if problems:
        raise LaunchRejected("On-chain state does not match the launch", problems)


def _mismatch(path: str, message: str) -> ErrorDetail:
    return ErrorDetail(path=path.split("."), message=message)


def _mint_mismatches(state: p.MintState, config: LaunchConfig) -> list[ErrorDetail]:
    """Where the mint (its decimals, supply, authorities, metadata) differs from the launch."""
    problems: list[ErrorDetail] = []
    total = config.supply * 10**config.decimals
    if state.decimals != config.decimals:
        said = f"mint has {state.decimals} decimals, launch says {config.decimals}"
        problems.append(_mismatch("launch.decimals", said))
    if state.supply != total:
        said = f"mint supply is {state.supply} base units, expected {total}"
        problems.append(_mismatch("launch.supply", said))
    if config.finalize and state.mint_authority is not None:
        said = "a finalized launch's mint authority must be revoked"
        problems.append(_mismatch("mint.mintAuthority", said))
    if state.freeze_authority is not None:
        problems.append(_mismatch("mint.freezeAuthority", "the mint must have no freeze authority"))
    for field, want in (("name", config.name), ("symbol", config.symbol), ("uri", config.image)):
        got = getattr(state, field)
        if got != want:
            where = f"launch.{'image' if field == 'uri' else field}"
            problems.append(
                _mismatch(where, f"on-chain metadata {field} is {got!r}, expected {want!r}")
            )
    return problems


def _bucket_mismatches(
    chain: Chain, config: LaunchConfig, genesis: Pubkey, mint: Pubkey, traded: bool
) -> list[ErrorDetail]:
    """Where a bucket's token account is missing, another's, or holds the wrong amount (a
    traded curve's balance has moved on purpose)."""
    problems: list[ErrorDetail] = []
    for bucket in plan_buckets(config, genesis, mint):
        found = chain.account(bucket.account)
        where = f"allocations.{bucket.name}"
        if found is None:
            problems.append(_mismatch(where, f"bucket account {bucket.account} not found"))
            continue
        token = p.read_token_account(bytes(found.data))
        if token.mint != mint or token.owner != bucket.owner:
            problems.append(_mismatch(where, "bucket account belongs to another mint or owner"))
        elif token.amount != bucket.amount and not (traded and bucket.kind == "bondingCurveV2"):
            said = f"bucket holds {token.amount} base units, expected {bucket.amount}"
            problems.append(_mismatch(where, said))
    return problems


def _token_amount(chain: Chain, key: Pubkey) -> int | None:
    account = chain.account(key)
    return p.read_token_account(bytes(account.data)).amount if account else None


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
