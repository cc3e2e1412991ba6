"""The sandbox's HTTP app: the routers of `routes/` (the `/v1` API, the `/_sandbox` admin
surface, Solana JSON-RPC and PubSub), the error handlers that keep every failure in the
spec's envelope, and the middleware that injects faults and counts calls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import ClientDisconnect
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

from launchops.api.after import INVALID_WALLET
from launchops.api.models import ErrorDetail
from launchops.errors import LaunchForbidden
from launchops.sandbox import api_faults, outages
from launchops.sandbox.launches import LaunchRejected
from launchops.sandbox.pubsub import PubSub
from launchops.sandbox.routes import admin, after, agents, block_engine, launches, rpc, tokens
from launchops.sandbox.routes.errors import (
    INVALID_INPUT,
    envelope,
    read_error,
    validation_details,
)
from launchops.sandbox.service import SandboxService

# `after` first: its POST /v1/agents/mint before agents' paths with an address.
ROUTERS = (
    after.router,
    agents.router,
    launches.router,
    tokens.router,
    admin.router,
    block_engine.router,
    rpc.router,
)
# Included without a prefix, so each route's path is whole: `_endpoint` names requests by them.
ROUTES: list[BaseRoute] = [route for router in ROUTERS for route in router.routes]
FAILURE_TEXT = {
    "POST /v1/agents/{address}/fund": "Failed to prepare fund transaction",
    "POST /v1/agents/{address}/withdraw": "Failed to prepare withdraw transaction",
}


def build_app(service: SandboxService) -> FastAPI:
    app = FastAPI(
        title="launchops sandbox",
        description="A local implementation of the agent registry and token launch service.",
        version="1",
        lifespan=_lifespan,
        openapi_url="/v1/openapi.json",
        docs_url="/v1/docs",
        redoc_url=None,
    )
    app.state.service = service
    app.state.pubsub = PubSub(service.chain)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(LaunchRejected, _rejected)
    app.add_exception_handler(LaunchForbidden, _forbidden)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(ClientDisconnect, _gone)
    app.add_exception_handler(Exception, _crashed)
    app.add_middleware(FaultsAndStats)
    # The routes themselves, not the routers: FastAPI 0.150 keeps an included router as
    # one route and builds its routes' dependants again for each app, on its first
    # request (~15 ms of CPU; a test starts a sandbox, and so an app, of its own).
    app.router.routes.extend(ROUTES)
    return app


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    service: SandboxService = app.state.service
    service.start_clock()
    yield
    await service.stop_clock()


# ── errors, each in the spec's envelope ─────────────────────────────────────


async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    details = validation_details(exc)
    if _read_envelope(request):
        wallet = any(d.path[:1] == ["wallet"] for d in details)
        if request.url.path.endswith("/claim") and (wallet or not details):
            return read_error(400, INVALID_WALLET)
        return read_error(400, INVALID_INPUT)
    return envelope(400, INVALID_INPUT, details)


def _read_envelope(request: Request) -> bool:
    """Whether the endpoint answers `{error: {message}}` (launch reads, the claim)."""
    path = request.url.path
    if path == "/v1/creator-rewards/claim":
        return True
    return request.method == "GET" and path.startswith(after.READ_ENVELOPE_PATHS[0])


async def _rejected(request: Request, exc: LaunchRejected) -> JSONResponse:
    return envelope(400, exc.error, exc.details)


async def _forbidden(request: Request, exc: LaunchForbidden) -> JSONResponse:
    return envelope(403, exc.error)


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    # 404, 405 and the rest: in the spec's envelope, not FastAPI's {"detail": ...}.
    text = "Not found" if exc.status_code == 404 else str(exc.detail)
    return envelope(exc.status_code, text, headers=exc.headers)


async def _gone(request: Request, exc: ClientDisconnect) -> Response:
    return Response(status_code=499)


async def _crashed(request: Request, exc: Exception) -> JSONResponse:
    name = _endpoint(request.scope)
    return envelope(500, FAILURE_TEXT.get(name, "Internal server error"))


# ── faults and stats ────────────────────────────────────────────────────────


class FaultsAndStats:
    """Every answer's added latency; the `/v1` API's faults and counts; JSON-RPC (HTTP to
    `/`) answered here, without the app's routing (`launchops.sandbox.routes.rpc`). A pure
    ASGI middleware: PubSub and the admin paths go straight to the app, and only the `/v1`
    API's calls pass through Starlette's `BaseHTTPMiddleware` (its request and streamed
    response cost ~0.3 ms of CPU a call, which every JSON-RPC call paid before)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.api = BaseHTTPMiddleware(app, dispatch=_api_faults_and_stats)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        service: SandboxService = scope["app"].state.service
        if service.faults.latency_ms:
            await asyncio.sleep(service.faults.latency_ms / 1000)
        path = scope["path"]
        if path == "/":
            await rpc.serve(scope, receive, send)
        elif path.startswith("/v1/") and path != "/v1/openapi.json":
            await self.api(scope, receive, send)
        else:
            await self.app(scope, receive, send)


async def _api_faults_and_stats(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """A `/v1` call: counted, then answered with its injected fault or refusal, if any."""
    service: SandboxService = request.app.state.service
    name = _endpoint(request.scope)
    service.stats.api[name] += 1
    service.stats.arrived("api")
    fault = service.injector.api_fault(name)
    if fault is not None:
        service.stats.refused[f"{name} {fault}"] += 1
        return await _api_fault(fault, request, call_next)
    status = service.injector.refusal(name, service.faults.api_error_rate)
    if status is None:
        return await call_next(request)
    service.stats.refused[name] += 1
    return _refused(status, name)


async def _api_fault(
    fault: str, request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    """The answer of named API fault `fault` (`launchops.sandbox.api_faults`)."""
    if fault == "lost_answer":  # run it all, then answer nothing
        response = await call_next(request)
        async for _ in getattr(response, "body_iterator", ()):
            pass
        return await outages.hold(request)
    if fault == "blackhole":
        return await outages.hold(request)
    service: SandboxService = request.app.state.service
    ray = f"{service.injector.rng.getrandbits(64):016x}"
    return api_faults.page(fault, request.headers.get("host", request.url.netloc), ray)


def _refused(status: int, name: str) -> JSONResponse:
    """The answer of an injected fault: a 5xx with the endpoint's failure text, 503 and 429
    as an overloaded service says them, any other status as an injected failure."""
    if status >= 500 and status != 503:
        return envelope(status, FAILURE_TEXT.get(name, "Internal server error"))
    if status == 429:
        return envelope(status, "Too many requests", headers={"Retry-After": "1"})
    if status == 503:
        return envelope(status, "Service unavailable")
    return envelope(status, "Injected failure", [ErrorDetail(path=[], message="fail_next")])


def _endpoint(scope: dict[str, Any]) -> str:
    """`METHOD /path/{template}` of the route a request matches: the name faults and stats
    use, matched here: the middleware runs before the app's routing has matched it."""
    for route in ROUTES:
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return f"{scope['method']} {getattr(route, 'path', scope['path'])}"
    return f"{scope.get('method', '')} {scope['path']}"
