"""POST /v1/launches/create and /register (spec sections 4.5, 4.6), and the public page
that register's `launch.link` points at."""

from __future__ import annotations

import html
from typing import Annotated

from fastapi import APIRouter, Body
from fastapi.responses import HTMLResponse, JSONResponse, Response

from launchops.api.models import CreateLaunchRequest, RegisterLaunchRequest
from launchops.sandbox.routes.state import Service

router = APIRouter(tags=["launches"])


@router.post("/v1/launches/create")
async def create(service: Service, body: Annotated[CreateLaunchRequest, Body()]) -> JSONResponse:
    return JSONResponse(service.create_launch(body).to_wire())


@router.post("/v1/launches/register")
async def register(
    service: Service, body: Annotated[RegisterLaunchRequest, Body()]
) -> JSONResponse:
    return JSONResponse(service.register_launch(body).to_wire())


@router.get("/launch/{launch_id}", include_in_schema=False)
async def launch_page(service: Service, launch_id: str) -> Response:
    token = service.launch_page(launch_id)
    if token is None:
        return HTMLResponse("<h1>Launch not found</h1>", status_code=404)
    name, symbol = html.escape(token.name), html.escape(token.symbol)
    return HTMLResponse(
        f"<!doctype html><title>{name}</title><h1>{name} ({symbol})</h1>"
        f"<p>{html.escape(token.description)}</p>"
        f"<p>Mint <code>{token.address}</code> · sandbox launch {launch_id}</p>"
    )
