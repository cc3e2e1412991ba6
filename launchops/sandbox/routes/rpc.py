"""Solana JSON-RPC over POST / and PubSub over WebSocket /, as a node serves them (the
sandbox's RPC URL is its root; PubSub is also reached on port + 1)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from starlette.requests import ClientDisconnect

from launchops.sandbox import rpc_faults
from launchops.sandbox.chain import RpcError
from launchops.sandbox.pubsub import PubSub
from launchops.sandbox.routes.state import Hub, Service
from launchops.sandbox.service import SandboxService

REFUSAL_TEXT = {429: "Too many requests for a specific RPC call", 503: "Service unavailable"}

router = APIRouter()


@router.post("/", include_in_schema=False)
async def rpc(request: Request, service: Service, pubsub: Hub) -> Response:
    service.stats.arrived("rpc")
    try:
        payload = json.loads(await request.body())
    except ClientDisconnect:
        return Response(status_code=499)  # the caller is gone (killed mid-request)
    except ValueError:
        return JSONResponse(_error(None, RpcError(-32700, "Parse error")))
    calls = payload if isinstance(payload, list) else [payload]
    answers = []
    for call in calls:
        refused = _refusal(service, call)
        if refused is not None:
            return refused  # one refused call refuses the whole request, batch or not
        answers.append(_answer(service, pubsub, call))
    return JSONResponse(answers if isinstance(payload, list) else answers[0])


@router.websocket("/")
async def pubsub_socket(websocket: WebSocket, service: Service, pubsub: Hub) -> None:
    await pubsub.serve(websocket, service.stats)


def _refusal(service: SandboxService, call: Any) -> Response | None:
    """The injected fault's answer to this call (429 and 503 as a node sends them, or a
    named RPC fault: `launchops.sandbox.rpc_faults`), if any."""
    if not isinstance(call, dict) or "method" not in call:
        return None
    method = str(call["method"])
    named = service.injector.rpc_fault(method)
    if named is not None:
        service.stats.refused[f"{method} {named}"] += 1
        return rpc_faults.answer(named, call.get("id"), service.chain.slot)
    status = service.injector.refusal(method, service.faults.rpc_error_rate)
    if status is None:
        return None
    service.stats.refused[method] += 1
    error = RpcError(status, REFUSAL_TEXT.get(status, "Internal error"))
    headers = {"Retry-After": "1"} if status == 429 else None
    return JSONResponse(_error(call.get("id"), error), status_code=status, headers=headers)


def _answer(service: SandboxService, pubsub: PubSub, call: Any) -> dict[str, Any]:
    if not isinstance(call, dict) or "method" not in call:
        return _error(None, RpcError(-32600, "Invalid request"))
    method = str(call["method"])
    try:
        result = service.rpc_call(method, call.get("params"))
    except RpcError as exc:
        return _error(call.get("id"), exc)
    if method == "sendTransaction" and service.slot_ms == 0:
        asyncio.get_running_loop().call_soon(pubsub.advance_for_watchers)
    return {"jsonrpc": "2.0", "result": result, "id": call.get("id")}


def _error(request_id: Any, error: RpcError) -> dict[str, Any]:
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": "2.0", "error": body, "id": request_id}
