"""GET /v1/tokens/{token_address}: every launch of a token, with its metadata and links
(spec section 4.7)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from launchops.api.fields import Network
from launchops.sandbox.routes.errors import read_error
from launchops.sandbox.routes.state import Service

router = APIRouter(tags=["tokens"])


@router.get("/v1/tokens/{token_address}")
async def token(
    service: Service, token_address: str, network: Network = Network.MAINNET
) -> JSONResponse:
    data = service.token(token_address, network)
    if data is None:
        return read_error(404, "Token not found")
    return JSONResponse({"data": data})
