"""Models of every resource and body of the service (spec: service-v1.md), one contract
for the client and the sandbox.

Wire names are camelCase, Python names snake_case; unknown fields in answers are kept
(`extra="allow"`), so a newer service never breaks an older client.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator
from solders.pubkey import Pubkey

from launchops.api.allocations import (
    ALLOCATION_TYPES,
    Allocation,
    LaunchpoolAllocation,
    PresaleAllocation,
    RaydiumLP,
)
from launchops.api.amounts import Decimals, Integer, SolAmount, Supply, base_units, whole_tokens
from launchops.api.fields import (
    U64_MAX,
    Base64Bytes,
    Blockhash,
    HttpUrl,
    ImageUrl,
    Network,
    PublicKey,
    Text,
    Timestamp,
    WireModel,
    rule,
)

WRAPPED_SOL_MINT = Pubkey.from_string("So11111111111111111111111111111111111111112")
USDC_MINTS = {
    Network.MAINNET: Pubkey.from_string("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"),
    Network.DEVNET: Pubkey.from_string("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"),
}
DEFAULT_DECIMALS = 6
DEFAULT_SUPPLY = 1_000_000_000
MAX_PAGE = 1_000_000
MAX_BUCKETS = 100
"""Buckets of one launch (allocations and liquidity-pool flows): a bucket's address takes
its index among those of its type as one byte, and each 4 buckets add a transaction."""

# ── Agents ──────────────────────────────────────────────────────────────────


class AgentRecord(WireModel):
    mint_address: PublicKey
    network: Network
    name: str
    description: str = ""
    image: str | None = None
    wallet_address: PublicKey
    authority: str | None = None
    agent_token: str | None = None
    agent_metadata_uri: str | None = None
    metadata: dict[str, Any] | None = None
    a2a_card: dict[str, Any] | None = Field(None, alias="a2aCard")
    is_active: bool = False
    registration_signature: str | None = None
    indexed_at: Timestamp | None = None
    spotlighted_at: Timestamp | None = None
    verified_at: Timestamp | None = None
    created_at: Timestamp
    updated_at: Timestamp


class AgentsPage(WireModel):
    agents: list[AgentRecord]
    total: int = Field(ge=0)
    page: int = Field(ge=1)
    page_size: int = Field(ge=1)
    total_pages: int = Field(ge=0)


class PaginatedAgentsResponse(WireModel):
    success: Literal[True] = True
    data: AgentsPage


class AgentsQuery(WireModel):
    """Query of GET /agents; booleans travel as the strings `true` / `false`."""

    model_config = ConfigDict(extra="forbid")

    network: Network = Network.MAINNET
    page: Integer(1, MAX_PAGE) = 1
    page_size: Integer(1, 100) = 24
    query: str | None = None
    sort: Literal["latest", "oldest"] = "latest"
    active_only: bool | None = None
    has_agent_token: bool | None = None
    has_services: bool | None = None
    spotlight: bool | None = None

    def to_params(self) -> dict[str, str]:
        wire = self.to_wire()
        return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in wire.items()}


class Capabilities(WireModel):
    streaming: bool = False


class Skill(WireModel):
    id: str
    name: str
    description: str = ""
    tags: list[str] = Field(default_factory=list)


class AgentCard(WireModel):
    """A2A AgentCard: the spec's fields typed, every other field kept as stored."""

    name: str
    description: str | None = None
    url: str | None = None
    version: str | None = None
    capabilities: Capabilities | None = None
    skills: list[Skill] | None = None
    default_input_modes: list[str] | None = None
    default_output_modes: list[str] | None = None


class FundRequest(WireModel):
    sender: PublicKey
    amount: SolAmount
    memo: Text(1, 256)
    network: Network = Network.MAINNET


class WithdrawRequest(WireModel):
    sender: PublicKey
    amount: SolAmount
    network: Network = Network.MAINNET


class BlockhashInfo(WireModel):
    blockhash: Blockhash
    last_valid_block_height: Integer(0, U64_MAX)


class TransactionResponse(WireModel):
    """Answer of fund and withdraw: one base64 transaction and its blockhash."""

    success: Literal[True] = True
    tx: Base64Bytes
    blockhash: BlockhashInfo


# ── Launches ────────────────────────────────────────────────────────────────


class ExternalLinks(WireModel):
    website: HttpUrl | None = None
    twitter: str | None = None
    telegram: str | None = None


class LaunchConfig(WireModel):
    """The `launch` object of create and register, with every rule of spec sections 2, 8."""

    name: Text(1, 32)
    symbol: Text(1, 10)
    image: ImageUrl
    description: Text(0, 250) | None = None
    decimals: Decimals = DEFAULT_DECIMALS
    supply: Supply = Field(DEFAULT_SUPPLY, description="whole tokens; at most 10^18")
    network: Network = Network.MAINNET
    quote_mint: PublicKey = Field(str(WRAPPED_SOL_MINT), validate_default=True)
    type: Literal["launchpool", "presale"]
    finalize: bool = True
    allocations: list[Allocation] = Field(min_length=1)
    external_links: ExternalLinks | None = None
    public_key: PublicKey

    @model_validator(mode="after")
    def _check_supply_and_mechanic(self) -> LaunchConfig:
        buckets = len(self.buckets())
        if buckets > MAX_BUCKETS:
            raise rule(
                "buckets",
                f"a launch holds at most {MAX_BUCKETS} buckets (allocations and liquidity-pool "
                f"flows); this one has {buckets}",
            )
        if self.supply * 10**self.decimals > U64_MAX:
            raise rule(
                "supply",
                f"supply {self.supply} with {self.decimals} decimals does not fit a token "
                "mint (supply x 10^decimals must be below 2^64)",
            )
        allocated = sum(base_units(b.supply, self.decimals) for b in self.buckets())
        if allocated > self.supply * 10**self.decimals:
            raise rule(
                "allocations",
                f"allocations (with their liquidity-pool supply) add up to "
                f"{whole_tokens(allocated, self.decimals)} tokens, more than the supply "
                f"{self.supply}",
            )
        wanted = LaunchpoolAllocation if self.type == "launchpool" else PresaleAllocation
        if not any(isinstance(a, wanted) for a in self.allocations):
            kind = "launchpoolV2" if self.type == "launchpool" else "presaleV2"
            raise rule("mechanic", f"a {self.type} launch needs a {kind} allocation")
        return self

    def buckets(self) -> list[Allocation | RaydiumLP]:
        """Every bucket that holds tokens: each allocation, then each launchpool's LP flow."""
        flows = [
            flow
            for a in self.allocations
            if isinstance(a, LaunchpoolAllocation)
            for flow in a.launchpool_v2.fund_flows
            if isinstance(flow, RaydiumLP) and flow.supply > 0
        ]
        return [*self.allocations, *flows]


class CreateLaunchRequest(WireModel):
    wallet: PublicKey
    launch: LaunchConfig

    @model_validator(mode="after")
    def _public_key_is_wallet(self) -> CreateLaunchRequest:
        if self.launch.public_key != self.wallet:
            raise rule("public_key", "launch.publicKey must equal the top-level wallet")
        return self


class CreateLaunchResponse(WireModel):
    success: Literal[True] = True
    transactions: list[Base64Bytes] = Field(min_length=1)
    blockhash: BlockhashInfo
    mint_address: PublicKey
    genesis_account: PublicKey


class RegisterLaunchRequest(WireModel):
    genesis_account: PublicKey
    network: Network = Network.MAINNET
    launch: LaunchConfig
    twitter_verification_token: str | None = None

    @model_validator(mode="after")
    def _network_matches(self) -> RegisterLaunchRequest:
        if self.launch.network != self.network:
            raise rule(
                "network",
                f"network {self.network} differs from launch.network {self.launch.network}",
            )
        return self


class RegisteredLaunch(WireModel):
    id: str
    link: str


class RegisteredToken(WireModel):
    id: str
    mint_address: PublicKey


class RegisterLaunchResponse(WireModel):
    success: Literal[True] = True
    existing: bool | None = None
    launch: RegisteredLaunch
    token: RegisteredToken


# ── Token lookup ────────────────────────────────────────────────────────────


class Launch(WireModel):
    """One launch campaign of a token, as GET /tokens/{mint} lists it."""

    launch_page: str
    mechanic: str
    genesis_address: PublicKey
    spotlight: bool = False
    start_time: Timestamp | None = None
    end_time: Timestamp | None = None
    status: str
    hero_url: str | None = None
    graduated_at: Timestamp | None = None
    last_activity_at: Timestamp | None = None
    type: str


class BaseToken(WireModel):
    address: PublicKey
    name: str
    symbol: str
    image: str = ""
    description: str = ""


class Socials(WireModel):
    x: str | None = None
    telegram: str | None = None
    discord: str | None = None


class TokenData(WireModel):
    launches: list[Launch]
    base_token: BaseToken
    website: str | None = None
    socials: Socials = Field(default_factory=Socials)


class TokenResponse(WireModel):
    data: TokenData


# ── Errors ──────────────────────────────────────────────────────────────────


class ErrorDetail(WireModel):
    """One problem in `details`, as the service's examples write it: where, and what."""

    path: list[str | int]
    message: str


class ErrorEnvelope(WireModel):
    success: Literal[False] = False
    error: str
    # The spec leaves the element shape open; ErrorDetail is the one its examples show.
    details: list[Any] | None = None


class ReadErrorMessage(WireModel):
    message: str


class ReadError(WireModel):
    """The `{error: {message}}` shape of the public service's read endpoints."""

    error: ReadErrorMessage


__all__ = [
    "ALLOCATION_TYPES",
    "USDC_MINTS",
    "WRAPPED_SOL_MINT",
    "AgentCard",
    "AgentRecord",
    "AgentsPage",
    "AgentsQuery",
    "BaseToken",
    "BlockhashInfo",
    "Capabilities",
    "CreateLaunchRequest",
    "CreateLaunchResponse",
    "ErrorDetail",
    "ErrorEnvelope",
    "ExternalLinks",
    "FundRequest",
    "Launch",
    "LaunchConfig",
    "Network",
    "PaginatedAgentsResponse",
    "ReadError",
    "RegisterLaunchRequest",
    "RegisterLaunchResponse",
    "RegisteredLaunch",
    "RegisteredToken",
    "Skill",
    "Socials",
    "TokenData",
    "TokenResponse",
    "TransactionResponse",
    "WithdrawRequest",
]
