"""Models of every resource and body of the service (spec: service-v1.md), one contract
for the client and the sandbox.

Wire names are camelCase, Python names snake_case; unknown fields in answers are kept
(`extra="allow"`), so a newer service never breaks an older client.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from launchops.api.allocations import (
    ALLOCATION_TYPES,
)
from launchops.api.amounts import Integer, SolAmount
from launchops.api.fields import (
    Base64Bytes,
    Network,
    PublicKey,
    Text,
    Timestamp,
    WireModel,
)
from launchops.api.launches import (
    DEFAULT_DECIMALS,
    DEFAULT_SUPPLY,
    MAX_BUCKETS,
    MECHANIC_NAMES,
    USDC_MINTS,
    WRAPPED_SOL_MINT,
    AgentLink,
    BlockhashInfo,
    CreateLaunchRequest,
    CreateLaunchResponse,
    ExternalLinks,
    LaunchConfig,
    RegisteredLaunch,
    RegisteredToken,
    RegisterLaunchRequest,
    RegisterLaunchResponse,
)

MAX_PAGE = 1_000_000

# ── Agents ──────────────────────────────────────────────────────────────────


class AgentRecord(WireModel):
    """One agent of the registry, as GET /agents lists it and GET /agents/{address}
    answers it: its Core asset (`mintAddress`), its wallet and authority, its metadata
    and A2A card, and when it was indexed, spotlighted and verified (UTC)."""

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
    """`data` of GET /agents: one page of agents (`page` counted from 1) and the totals."""

    agents: list[AgentRecord]
    total: int = Field(ge=0)
    page: int = Field(ge=1)
    page_size: int = Field(ge=1)
    total_pages: int = Field(ge=0)


class PaginatedAgentsResponse(WireModel):
    """The answer of GET /agents: `{success, data}`, one page (`AgentsPage`);
    `iter_agents` of the client walks every page."""

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
    """`capabilities` of an A2A agent card: whether the agent streams."""

    streaming: bool = False


class Skill(WireModel):
    """One of an A2A agent card's `skills`: its id, name, description and tags."""

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
    """POST /agents/{address}/fund: `sender` pays `amount` SOL (a decimal, not lamports)
    into the agent's wallet, with `memo` (1 to 256 characters) in the transaction."""

    sender: PublicKey
    amount: SolAmount
    memo: Text(1, 256)
    network: Network = Network.MAINNET


class WithdrawRequest(WireModel):
    """POST /agents/{address}/withdraw: `amount` SOL (a decimal, not lamports) from the
    agent's wallet to `sender`, the agent's owner, who signs."""

    sender: PublicKey
    amount: SolAmount
    network: Network = Network.MAINNET


class TransactionResponse(WireModel):
    """Answer of fund and withdraw: one base64 transaction and its blockhash."""

    success: Literal[True] = True
    tx: Base64Bytes
    blockhash: BlockhashInfo


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
    """`baseToken` of GET /tokens/{mint} and of the launch reads: the token a launch
    sells, by its mint `address`."""

    address: PublicKey
    name: str
    symbol: str
    image: str = ""
    description: str = ""


class Socials(WireModel):
    """`socials` of a token: its X, Telegram and Discord links as the service keeps them;
    None when not set."""

    x: str | None = None
    telegram: str | None = None
    discord: str | None = None


class TokenData(WireModel):
    """`data` of GET /tokens/{mint}: the token, every launch of it, its website and socials."""

    launches: list[Launch]
    base_token: BaseToken
    website: str | None = None
    socials: Socials = Field(default_factory=Socials)


class TokenResponse(WireModel):
    """The answer of GET /tokens/{mint}: `{data}` (`TokenData`)."""

    data: TokenData


# ── Errors ──────────────────────────────────────────────────────────────────


class ErrorDetail(WireModel):
    """One problem in `details`, as the service's examples write it: where, and what."""

    path: list[str | int]
    message: str


class ErrorEnvelope(WireModel):
    """The service's error answer, `{success: false, error, details?}`: the message, and
    the problems when it lists them (shaped as `ErrorDetail` in its examples)."""

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
    "DEFAULT_DECIMALS",
    "DEFAULT_SUPPLY",
    "MAX_BUCKETS",
    "MECHANIC_NAMES",
    "USDC_MINTS",
    "WRAPPED_SOL_MINT",
    "AgentCard",
    "AgentLink",
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
