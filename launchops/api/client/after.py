"""The client's calls for what comes after a launch: a launch's status, claiming creator
rewards, minting an agent and reading one. Part of `AsyncServiceClient`; through
its transport (`_call`, with its retries of transients).

A claim with nothing to claim is the service's 400 `No rewards available to claim`; here
it is an ordinary result, `NothingToClaim`, not an error. Every other failure is a typed
error of `launchops.api.errors`, as for every call.
"""

from __future__ import annotations

from typing import Any

from launchops.api.after import (
    NOTHING_TO_CLAIM,
    AgentMetadata,
    AgentResponse,
    ClaimRewardsRequest,
    ClaimRewardsResponse,
    LaunchDetail,
    LaunchDetailResponse,
    LaunchListResponse,
    LaunchStatus,
    MintAgentRequest,
    MintAgentResponse,
    NothingToClaim,
    RewardsClaim,
)
from launchops.api.client.transport import Address, Transport, segment, validated
from launchops.api.errors import BadRequestError
from launchops.api.fields import Network
from launchops.api.models import AgentRecord
from launchops.api.responses import parse


class AfterLaunchCalls(Transport):
    """Calls of GET /launches/{genesisAddress}, GET /launches, POST /creator-rewards/claim,
    POST /agents/mint and GET /agents/{address}."""

    async def get_launch(
        self, genesis_address: Address, *, network: Network | str | None = None
    ) -> LaunchDetail:
        """A launch and where it stands (`launch.status`: upcoming, live, graduated,
        ended); NotFoundError when the address has no launch on the network."""
        path = f"launches/{segment(genesis_address)}"
        response = await self._call("GET", path, params={"network": self._net(network)})
        return parse(LaunchDetailResponse, response).data

    async def list_launches(
        self,
        *,
        network: Network | str | None = None,
        status: LaunchStatus | None = None,
        spotlight: bool | None = None,
    ) -> list[LaunchDetail]:
        """Every launch on the network, filtered by status and spotlight (not paginated)."""
        params = {"network": self._net(network)}
        if status is not None:
            params["status"] = status
        if spotlight is not None:
            params["spotlight"] = str(spotlight).lower()
        response = await self._call("GET", "launches", params=params)
        return parse(LaunchListResponse, response).data

    async def claim_creator_rewards(
        self,
        wallet: Address,
        *,
        network: Network | str | None = None,
        payer: Address | None = None,
    ) -> RewardsClaim | NothingToClaim:
        """The transactions that pay `wallet` its creator fees (one per bucket with fees;
        `payer`, or else the wallet, signs and pays), or `NothingToClaim`. A claim whose
        blockhash expired unlanded is asked again: fresh transactions, same fees."""
        body = _validated_claim(wallet, self._net(network), payer)
        try:
            response = await self._call("POST", "creator-rewards/claim", json=body)
        except BadRequestError as exc:
            if exc.error == NOTHING_TO_CLAIM:
                return NothingToClaim(wallet=str(wallet), network=body["network"])
            raise
        return parse(ClaimRewardsResponse, response).data

    async def mint_agent(
        self,
        wallet: Address,
        *,
        name: str,
        uri: str,
        agent_metadata: AgentMetadata | dict[str, Any],
        network: Network | str | None = None,
        collection_address: Address | None = None,
        a2a_card: dict[str, Any] | None = None,
    ) -> MintAgentResponse:
        """The mint transaction of a new agent owned by `wallet` (signed by the asset's
        key; the wallet co-signs as fee payer and sends it). Not idempotent: each call
        that is signed and lands is another agent; an unsigned answer never lands."""
        body = validated(
            MintAgentRequest,
            wallet=wallet,
            network=self._net(network),
            name=name,
            uri=uri,
            agent_metadata=agent_metadata,
            collection_address=collection_address,
            a2a_card=a2a_card,
        )
        response = await self._call("POST", "agents/mint", json=body.to_wire())
        return parse(MintAgentResponse, response)

    async def get_agent(
        self, address: Address, *, network: Network | str | None = None
    ) -> AgentRecord:
        """One agent (NotFoundError until its mint is confirmed and indexed)."""
        params = {"network": self._net(network)}
        response = await self._call("GET", f"agents/{segment(address)}", params=params)
        return parse(AgentResponse, response).data


def _validated_claim(wallet: Address, network: str, payer: Address | None) -> dict[str, Any]:
    body = validated(ClaimRewardsRequest, wallet=wallet, network=network, payer=payer)
    return body.to_wire()
