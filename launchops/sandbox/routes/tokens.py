"""GET /v1/tokens/{token_address}: every launch of a token, with its metadata and links
(spec section 4.7)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from launchops.api.fields import Network
from launchops.api.models import TokenResponse
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
    # The listing's fields as stored, nulls kept (heroUrl, graduatedAt, website), socials
    # only those the launch gave: `to_wire` would drop the nulls, a full dump add socials'.
    return JSONResponse(TokenResponse(data=data).to_json_echo())
