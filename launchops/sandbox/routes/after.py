"""After the launch: a launch's status (GET /v1/launches/{genesisAddress}, GET
/v1/launches), creator-reward claims (POST /v1/creator-rewards/claim), minting an agent
(POST /v1/agents/mint) and reading one (GET /v1/agents/{address}).

The launch reads and the claim answer `{data}` and fail with `{error: {message}}` (their
validation errors too: see `app.py`); the agent endpoints use `{success, error}`."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Body, Path
from fastapi.responses import JSONResponse

from launchops.api.after import (
    NOTHING_TO_CLAIM,
    AgentResponse,
    ClaimRewardsRequest,
    ClaimRewardsResponse,
    LaunchDetailResponse,
    LaunchStatus,
    MintAgentRequest,
)
from launchops.api.fields import Network
from launchops.api.models import AgentRecord
from launchops.sandbox import minting
from launchops.sandbox.routes.errors import envelope, read_error
from launchops.sandbox.routes.state import Service

router = APIRouter(tags=["after the launch"])
Address = Annotated[str, Path(max_length=100)]  # a base58 address in the path
READ_ENVELOPE_PATHS = ("/v1/launches", "/v1/creator-rewards/claim")
"""Paths (GET /v1/launches and below, and the claim) whose errors are `{error: {message}}`."""


@router.get("/v1/launches/{genesis_address}")
async def launch_status(
    service: Service, genesis_address: Address, network: Network = Network.MAINNET
) -> JSONResponse:
    detail = service.statuses.detail(genesis_address, network)
    if detail is None:
        return read_error(404, "Launch not found")
    return JSONResponse(LaunchDetailResponse(data=detail).to_json_echo())


@router.get("/v1/launches")
async def list_launches(
    service: Service,
    network: Network = Network.MAINNET,
    status: LaunchStatus | None = None,
    spotlight: Literal["true", "false"] | None = None,
) -> JSONResponse:
    wanted = None if spotlight is None else spotlight == "true"
    found = service.statuses.all(network, status, wanted)
    return JSONResponse(
        {"data": [LaunchDetailResponse(data=d).to_json_echo()["data"] for d in found]}
    )


@router.post("/v1/creator-rewards/claim")
async def claim_rewards(
    service: Service, body: Annotated[ClaimRewardsRequest, Body()]
) -> JSONResponse:
    claim = service.rewards.claim(body)
    if claim is None:
        return read_error(400, NOTHING_TO_CLAIM)
    return JSONResponse(ClaimRewardsResponse(data=claim).to_wire())


@router.post("/v1/agents/mint")
async def mint_agent(service: Service, body: Annotated[MintAgentRequest, Body()]) -> JSONResponse:
    return JSONResponse(minting.build_mint(service.chain, service.registry, body).to_wire())


@router.get("/v1/agents/{address}")
async def agent(
    service: Service, address: Address, network: Network = Network.MAINNET
) -> JSONResponse:
    found = service.registry.agent(address, network)
    if found is None:
        return envelope(404, "Agent not found")
    answer = AgentResponse(data=AgentRecord.model_validate(found))
    return JSONResponse(answer.model_dump(mode="json", by_alias=True))
