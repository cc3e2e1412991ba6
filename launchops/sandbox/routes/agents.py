"""GET /v1/agents, the hosted agent card, and the fund and withdraw transaction builders
(spec sections 4.1 to 4.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse, Response

from launchops.api.fields import Network
from launchops.api.models import (
    MAX_PAGE,
    AgentsQuery,
    FundRequest,
    PaginatedAgentsResponse,
    WithdrawRequest,
)
from launchops.sandbox.routes.errors import envelope, not_a_key, public_key
from launchops.sandbox.routes.state import Service

if TYPE_CHECKING:
    from solders.pubkey import Pubkey

CARD_CACHE = "max-age=60, stale-while-revalidate=600"
BoolText = Literal["true", "false"]

router = APIRouter(tags=["agents"])


@router.get("/v1/agents")
async def list_agents(
    service: Service,
    network: Network = Network.MAINNET,
    page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=100)] = 24,
    query: Annotated[str | None, Query(max_length=200)] = None,
    sort: Literal["latest", "oldest"] = "latest",
    active_only: Annotated[BoolText | None, Query(alias="activeOnly")] = None,
    has_agent_token: Annotated[BoolText | None, Query(alias="hasAgentToken")] = None,
    has_services: Annotated[BoolText | None, Query(alias="hasServices")] = None,
    spotlight: BoolText | None = None,
) -> JSONResponse:
    flags = {
        "active_only": active_only,
        "has_agent_token": has_agent_token,
        "has_services": has_services,
        "spotlight": spotlight,
    }
    parsed = AgentsQuery(
        network=network,
        page=page,
        page_size=page_size,
        query=query,
        sort=sort,
        **{k: v == "true" for k, v in flags.items() if v is not None},
    )
    answer = PaginatedAgentsResponse(data=service.registry.list(parsed))
    # Every field of every record, null included: the spec's AgentRecord says "or null".
    return JSONResponse(answer.model_dump(mode="json", by_alias=True))


@router.get("/v1/agents/{address}/agent-card.json")
async def agent_card(
    request: Request, service: Service, address: str, network: Network = Network.MAINNET
) -> Response:
    agent = service.registry.agent(address, network)
    card = agent.get("a2aCard") if agent else None
    if not card:
        return envelope(404, "Agent not found" if agent is None else "Agent card not found")
    etag = service.registry.card_etag(card)
    headers = {"ETag": etag, "Cache-Control": CARD_CACHE}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    # Not through AgentCard: the spec returns the card exactly as stored, as the ETag hashes it.
    return JSONResponse(card, headers=headers)


@router.post("/v1/agents/{address}/fund")
async def fund(
    service: Service, address: str, body: Annotated[FundRequest, Body()]
) -> JSONResponse:
    asset = _agent_asset(service, address, body.network)
    if isinstance(asset, JSONResponse):
        return asset
    return JSONResponse(service.registry.build_fund(asset, body).to_wire())


@router.post("/v1/agents/{address}/withdraw")
async def withdraw(
    service: Service, address: str, body: Annotated[WithdrawRequest, Body()]
) -> JSONResponse:
    asset = _agent_asset(service, address, body.network)
    if isinstance(asset, JSONResponse):
        return asset
    owner = service.registry.asset_owner(asset)
    if owner is None:
        return envelope(404, "Agent not found")
    if owner != body.sender:
        return envelope(403, "Only the agent owner can withdraw funds")
    return JSONResponse(service.registry.build_withdraw(asset, body).to_wire())


def _agent_asset(service: Any, address: str, network: Network) -> Pubkey | JSONResponse:
    """The agent's asset key, or what the service answers instead: 400 for an address
    that is no key, 404 for an agent it does not know on the network."""
    asset = public_key(address)
    if asset is None:
        return not_a_key("address")
    if service.registry.agent(address, network) is None:
        return envelope(404, "Agent not found")
    return asset
