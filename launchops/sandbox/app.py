"""HTTP for the sandbox: the `/v1` API, the `/_sandbox` admin surface, and Solana JSON-RPC
(POST /) with PubSub (WebSocket /), all thin over `SandboxService`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from solders.pubkey import Pubkey
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match

from launchops.api.fields import Network, clean_loc, error_message
from launchops.api.models import (
    MAX_PAGE,
    AgentsQuery,
    CreateLaunchRequest,
    FundRequest,
    RegisterLaunchRequest,
    WithdrawRequest,
)
from launchops.sandbox.chain import RpcError
from launchops.sandbox.faults import Faults
from launchops.sandbox.launches import LaunchRejected
from launchops.sandbox.pubsub import PubSub
from launchops.sandbox.service import SandboxService

CARD_CACHE = "max-age=60, stale-while-revalidate=600"
FAILURE_TEXT = {
    "POST /v1/agents/{address}/fund": "Failed to prepare fund transaction",
    "POST /v1/agents/{address}/withdraw": "Failed to prepare withdraw transaction",
}
BoolText = Literal["true", "false"]


def envelope(status: int, error: str, details: list[Any] | None = None) -> JSONResponse:
    body: dict[str, Any] = {"success": False, "error": error}
    if details:
        body["details"] = details
    return JSONResponse(body, status_code=status)


def read_error(status: int, message: str) -> JSONResponse:
    """The `{error: {message}}` shape the public service uses on its read endpoints."""
    return JSONResponse({"error": {"message": message}}, status_code=status)


def _details(exc: RequestValidationError) -> list[dict[str, Any]]:
    """FastAPI's errors as the envelope's details: `{path: [...], message}` per problem."""
    body = getattr(exc, "body", None)
    details = []
    for error in exc.errors():
        loc = tuple(error.get("loc", ()))
        source = loc[0] if loc else None
        where = loc[1:] if source in ("body", "query", "path") else loc
        path = clean_loc(where, body if source == "body" else None)
        details.append({"path": list(path), "message": error_message(error)})
    return details


def _not_a_key(field: str) -> JSONResponse:
    details = [{"path": [field], "message": "must be a base58 public key"}]
    return envelope(400, "Invalid input data", details)


def _asset(address: str) -> Pubkey | None:
    try:
        return Pubkey.from_string(address)
    except ValueError:
        return None


def build_app(service: SandboxService) -> FastAPI:
    pubsub = PubSub(service.chain)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        service.start_clock()
        yield
        await service.stop_clock()

    app = FastAPI(
        title="launchops sandbox",
        description="A local implementation of the agent registry and token launch service.",
        version="1",
        lifespan=lifespan,
        openapi_url="/v1/openapi.json",
        docs_url="/v1/docs",
        redoc_url=None,
    )
    app.state.service = service

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return envelope(400, "Invalid input data", _details(exc))

    @app.exception_handler(LaunchRejected)
    async def rejected(request: Request, exc: LaunchRejected) -> JSONResponse:
        return envelope(400, exc.error, exc.details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # 404, 405 and the rest: in the spec's envelope, not FastAPI's {"detail": ...}.
        text = "Not found" if exc.status_code == 404 else str(exc.detail)
        response = envelope(exc.status_code, text)
        response.headers.update(exc.headers or {})
        return response

    @app.exception_handler(ClientDisconnect)
    async def gone(request: Request, exc: ClientDisconnect) -> Response:
        return Response(status_code=499)

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        return envelope(
            500, FAILURE_TEXT.get(_endpoint(app, request.scope), "Internal server error")
        )

    @app.middleware("http")
    async def faults_and_stats(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        faults = service.faults
        if faults.latency_ms:
            await asyncio.sleep(faults.latency_ms / 1000)
        path = request.url.path
        if not path.startswith("/v1/") or path == "/v1/openapi.json":
            return await call_next(request)
        name = _endpoint(app, request.scope)
        service.stats.api[name] += 1
        refusal = service.injector.refusal(name, faults.api_error_rate)
        if refusal is not None:
            service.stats.refused[name] += 1
            if refusal >= 500 and refusal not in (503,):
                return envelope(refusal, FAILURE_TEXT.get(name, "Internal server error"))
            if refusal not in (429, 503):
                return envelope(refusal, "Injected failure", [{"path": [], "message": "fail_next"}])
            headers = {"Retry-After": "1"} if refusal == 429 else {}
            text = "Too many requests" if refusal == 429 else "Service unavailable"
            response = envelope(refusal, text)
            response.headers.update(headers)
            return response
        return await call_next(request)

    # ── agents ──────────────────────────────────────────────────────────────

    @app.get("/v1/agents", tags=["agents"])
    async def list_agents(
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
        return JSONResponse({"success": True, "data": service.registry.list(parsed)})

    @app.get("/v1/agents/{address}/agent-card.json", tags=["agents"])
    async def agent_card(
        request: Request, address: str, network: Network = Network.MAINNET
    ) -> Response:
        agent = service.registry.agent(address, network)
        card = agent.get("a2aCard") if agent else None
        if not card:
            return envelope(404, "Agent not found" if agent is None else "Agent card not found")
        etag = service.registry.card_etag(card)
        headers = {"ETag": etag, "Cache-Control": CARD_CACHE}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return JSONResponse(card, headers=headers)

    @app.post("/v1/agents/{address}/fund", tags=["agents"])
    async def fund(address: str, body: Annotated[FundRequest, Body()]) -> JSONResponse:
        asset = _asset(address)
        if asset is None:
            return _not_a_key("address")
        if service.registry.agent(address, body.network) is None:
            return envelope(404, "Agent not found")
        return _transaction(*service.registry.build_fund(asset, body))

    @app.post("/v1/agents/{address}/withdraw", tags=["agents"])
    async def withdraw(address: str, body: Annotated[WithdrawRequest, Body()]) -> JSONResponse:
        asset = _asset(address)
        if asset is None:
            return _not_a_key("address")
        owner = service.registry.asset_owner(asset)
        if owner is None or service.registry.agent(address, body.network) is None:
            return envelope(404, "Agent not found")
        if owner != body.sender:
            return envelope(403, "Only the agent owner can withdraw funds")
        return _transaction(*service.registry.build_withdraw(asset, body))

    # ── launches ────────────────────────────────────────────────────────────

    @app.post("/v1/launches/create", tags=["launches"])
    async def create(body: Annotated[CreateLaunchRequest, Body()]) -> JSONResponse:
        return JSONResponse(service.create_launch(body))

    @app.post("/v1/launches/register", tags=["launches"])
    async def register(body: Annotated[RegisterLaunchRequest, Body()]) -> JSONResponse:
        return JSONResponse(service.register_launch(body))

    @app.get("/v1/tokens/{token_address}", tags=["tokens"])
    async def token(token_address: str, network: Network = Network.MAINNET) -> JSONResponse:
        data = service.token(token_address, network)
        if data is None:
            return read_error(404, "Token not found")
        return JSONResponse({"data": data})

    @app.get("/launch/{launch_id}", include_in_schema=False)
    async def launch_page(launch_id: str) -> Response:
        token = service.launch_page(launch_id)
        if token is None:
            return HTMLResponse("<h1>Launch not found</h1>", status_code=404)
        base = token["baseToken"]
        return HTMLResponse(
            f"<!doctype html><title>{_html(base['name'])}</title><h1>{_html(base['name'])} "
            f"({_html(base['symbol'])})</h1><p>{_html(base['description'])}</p>"
            f"<p>Mint <code>{base['address']}</code> · sandbox launch {launch_id}</p>"
        )

    # ── admin ───────────────────────────────────────────────────────────────

    @app.get("/_sandbox/faults", tags=["sandbox"])
    async def get_faults() -> dict[str, Any]:
        return service.faults.model_dump()

    @app.put("/_sandbox/faults", tags=["sandbox"])
    async def put_faults(body: Annotated[dict[str, Any], Body()]) -> JSONResponse:
        try:
            faults = Faults.model_validate({**service.faults.model_dump(), **body})
        except ValueError as exc:
            return envelope(400, "Invalid faults", [str(exc)])
        service.set_faults(faults)
        return JSONResponse(faults.model_dump())

    @app.get("/_sandbox/stats", tags=["sandbox"])
    async def stats() -> dict[str, Any]:
        chain = service.chain
        return {
            **service.stats.snapshot(),
            "chain": {
                "slot": chain.slot,
                "transactions": len(chain.landed),
                "dropped": len(chain.dropped),
            },
            "launches": service.launch_counts(),
        }

    @app.post("/_sandbox/stats/reset", tags=["sandbox"])
    async def reset_stats() -> dict[str, bool]:
        service.stats.reset()
        return {"success": True}

    @app.post("/_sandbox/advance", tags=["sandbox"])
    async def advance(slots: Annotated[int, Query(ge=1, le=10_000)] = 1) -> dict[str, int]:
        service.chain.advance(slots)
        return {"slot": service.chain.slot}

    @app.post("/_sandbox/seed", tags=["sandbox"])
    async def seed(
        agents: Annotated[int, Query(ge=1, le=10_000)] = 10,
        network: Network = Network.MAINNET,
        owner: str | None = None,
    ) -> JSONResponse:
        owner_key = _asset(owner) if owner else None
        if owner and owner_key is None:
            return _not_a_key("owner")
        made = service.registry.seed(agents, network=network, owner=owner_key)
        return JSONResponse({"success": True, "agents": [a["mintAddress"] for a in made]})

    # ── JSON-RPC and PubSub ─────────────────────────────────────────────────

    @app.post("/", include_in_schema=False)
    async def rpc(request: Request) -> Response:
        try:
            payload = json.loads(await request.body())
        except ClientDisconnect:
            return Response(status_code=499)  # the caller is gone (killed mid-request)
        except ValueError:
            return JSONResponse(_rpc_error(None, RpcError(-32700, "Parse error")))
        calls = payload if isinstance(payload, list) else [payload]
        answers = []
        for call in calls:
            if not isinstance(call, dict) or "method" not in call:
                answers.append(_rpc_error(None, RpcError(-32600, "Invalid request")))
                continue
            method = str(call["method"])
            refusal = service.injector.refusal(method, service.faults.rpc_error_rate)
            if refusal is not None:
                service.stats.refused[method] += 1
                text = {
                    429: "Too many requests for a specific RPC call",
                    503: "Service unavailable",
                }
                error = RpcError(refusal, text.get(refusal, "Internal error"))
                headers = {"Retry-After": "1"} if refusal == 429 else None
                return JSONResponse(
                    _rpc_error(call.get("id"), error), status_code=refusal, headers=headers
                )
            try:
                result = service.rpc_call(method, call.get("params"))
                answers.append({"jsonrpc": "2.0", "result": result, "id": call.get("id")})
                if method == "sendTransaction" and service.slot_ms == 0:
                    asyncio.get_running_loop().call_soon(pubsub.advance_for_watchers)
            except RpcError as exc:
                answers.append(_rpc_error(call.get("id"), exc))
        return JSONResponse(answers if isinstance(payload, list) else answers[0])

    @app.websocket("/")
    async def pubsub_socket(websocket: WebSocket) -> None:
        await pubsub.serve(websocket, service.stats)

    return app


def _transaction(tx: bytes, blockhash: str, last_valid: int) -> JSONResponse:
    import base64

    return JSONResponse(
        {
            "success": True,
            "tx": base64.b64encode(tx).decode(),
            "blockhash": {"blockhash": blockhash, "lastValidBlockHeight": last_valid},
        }
    )


def _rpc_error(request_id: Any, error: RpcError) -> dict[str, Any]:
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": "2.0", "error": body, "id": request_id}


def _endpoint(app: FastAPI, scope: dict[str, Any]) -> str:
    for route in app.router.routes:
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return f"{scope['method']} {getattr(route, 'path', scope['path'])}"
    return f"{scope.get('method', '')} {scope['path']}"


def _html(text: str) -> str:
    import html

    return html.escape(text or "")
