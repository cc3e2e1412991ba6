"""The contract of what comes after a launch (public-service-now.md, "After the launch"):
a launch's status, creator-reward claims, and minting an agent. One contract for the
client and the sandbox, like `launchops.api.models`.

Envelopes: the launch reads and the claim answer `{data}` and fail with `{error:
{message}}`; minting answers `{success, ...}` and fails with `{success: false, error}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, model_validator

from launchops.api.fields import (
    Base64Bytes,
    HttpUrl,
    Network,
    PublicKey,
    Text,
    Timestamp,
    WireModel,
    rule,
)
from launchops.api.launches import BlockhashInfo
from launchops.api.models import AgentRecord, BaseToken, Socials

LaunchStatus = Literal["upcoming", "live", "graduated", "ended"]
LAUNCH_STATUSES: tuple[LaunchStatus, ...] = ("upcoming", "live", "graduated", "ended")
Mechanic = Literal["launchpoolV2", "presaleV2", "bondingCurveV2"]
LaunchType = Literal["launchpool", "presale", "bondingCurve"]
NOTHING_TO_CLAIM = "No rewards available to claim"
INVALID_WALLET = "✖ Invalid wallet address"
MAX_METADATA_ITEMS = 50

# ── launch status ───────────────────────────────────────────────────────────


class LaunchState(WireModel):
    """`data.launch` of GET /launches/{genesisAddress}: one launch and where it stands."""

    launch_page: str
    mechanic: Mechanic
    genesis_address: PublicKey
    spotlight: bool = False
    start_time: Timestamp | None = None
    end_time: Timestamp | None = None
    status: LaunchStatus
    hero_url: str | None = None
    graduated_at: Timestamp | None = None
    last_activity_at: Timestamp | None = None
    type: LaunchType


class LaunchDetail(WireModel):
    """`data` of GET /launches/{genesisAddress}, and each element of GET /launches."""

    launch: LaunchState
    base_token: BaseToken
    website: str | None = None
    socials: Socials = Field(default_factory=Socials)


class LaunchDetailResponse(WireModel):
    """The answer of GET /launches/{genesisAddress}: `{data}`, one launch (`LaunchDetail`)."""

    data: LaunchDetail


class LaunchListResponse(WireModel):
    """GET /launches: every launch that matches, not paginated."""

    data: list[LaunchDetail]


# ── creator rewards ─────────────────────────────────────────────────────────


class ClaimRewardsRequest(WireModel):
    """POST /creator-rewards/claim: `wallet` is the buckets' creator-fee wallet; `payer`
    (which must sign) covers fees and rent when the wallet cannot."""

    wallet: PublicKey
    network: Network = Network.MAINNET
    payer: PublicKey | None = None


class RewardsClaim(WireModel):
    """`data` of a claim: one transaction per bucket with fees (bonding curve, Raydium
    pool), sent one after the other in any order, all on one blockhash."""

    transactions: list[Base64Bytes] = Field(min_length=1)
    blockhash: BlockhashInfo


class ClaimRewardsResponse(WireModel):
    """The answer of POST /creator-rewards/claim: `{data}`, the claim's transactions
    (`RewardsClaim`); nothing to claim comes as a 400 instead (`NothingToClaim`)."""

    data: RewardsClaim


@dataclass(frozen=True)
class NothingToClaim:
    """The claim's ordinary "nothing to claim" outcome (the service's 400 `No rewards
    available to claim`): no fees accrued since the last claim that landed."""

    wallet: str
    network: str
    message: str = NOTHING_TO_CLAIM


# ── minting an agent ────────────────────────────────────────────────────────


class AgentService(WireModel):
    """One of `services` in an agent's registration: its name (1 to 64 characters), its
    endpoint (at most 500) and an optional version."""

    name: Text(1, 64)
    endpoint: Text(1, 500)
    version: Text(0, 32) | None = None


class AgentMetadata(WireModel):
    """The EIP-8004 registration an agent is minted with; other fields kept as given."""

    type: Text(0, 200) | None = None
    name: Text(1, 100)
    description: Text(0, 1000) = ""
    image: Text(0, 500) | None = None
    services: list[AgentService] = Field(default_factory=list, max_length=MAX_METADATA_ITEMS)
    registrations: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_METADATA_ITEMS)
    active: bool = True


class MintAgentRequest(WireModel):
    """POST /agents/mint: `wallet` pays and owns the new agent."""

    wallet: PublicKey
    network: Network
    name: Text(1, 32)
    uri: HttpUrl
    agent_metadata: AgentMetadata
    collection_address: PublicKey | None = None
    a2a_card: dict[str, Any] | None = Field(None, alias="a2aCard")

    @model_validator(mode="after")
    def _card_has_a_name(self) -> MintAgentRequest:
        if self.a2a_card is not None and not isinstance(self.a2a_card.get("name"), str):
            raise rule("a2a_card", "an a2aCard needs a name")
        return self


class MintAgentResponse(WireModel):
    """The mint transaction, signed by the new asset's key; the wallet signs as fee payer
    and sends it. Nothing deduplicates: each call is a new agent."""

    success: Literal[True] = True
    tx: Base64Bytes
    blockhash: BlockhashInfo
    asset_address: PublicKey


class AgentResponse(WireModel):
    """GET /agents/{address}: one agent, once its mint is confirmed and indexed."""

    success: Literal[True] = True
    data: AgentRecord


__all__ = [
    "INVALID_WALLET",
    "LAUNCH_STATUSES",
    "NOTHING_TO_CLAIM",
    "AgentMetadata",
    "AgentResponse",
    "AgentService",
    "ClaimRewardsRequest",
    "ClaimRewardsResponse",
    "LaunchDetail",
    "LaunchDetailResponse",
    "LaunchListResponse",
    "LaunchState",
    "LaunchStatus",
    "MintAgentRequest",
    "MintAgentResponse",
    "NothingToClaim",
    "RewardsClaim",
]
