"""Solana JSON-RPC over POST / and PubSub over WebSocket /, as a node serves them (the
sandbox's RPC URL is its root; PubSub is also reached on port + 1).

JSON-RPC is served straight from the ASGI scope (`serve`, which the app's outer
middleware hands every HTTP request to `/`), not through FastAPI's routing and
dependency injection: they cost ~0.06 ms of CPU a call (`python bench/sandbox_rpc.py`,
0.84 -> 0.78 ms with its client's share), and every launch and test against the sandbox
makes hundreds of calls."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from starlette.requests import ClientDisconnect
from starlette.types import Receive, Scope, Send

from launchops.sandbox import outages, rpc_faults, rpc_lies
from launchops.sandbox.chain import RpcError
from launchops.sandbox.pubsub import PubSub
from launchops.sandbox.routes.errors import envelope
from launchops.sandbox.routes.state import Hub, Service
from launchops.sandbox.service import SandboxService

REFUSAL_TEXT = {429: "Too many requests for a specific RPC call", 503: "Service unavailable"}

router = APIRouter()


async def serve(scope: Scope, receive: Receive, send: Send) -> None:
    """An HTTP request to `/`: a JSON-RPC request or batch answered if it is a POST, 405
    (in the envelope the app's other errors take) if it is not."""
    app = scope["app"]
    if scope["method"] == "POST":
        response = await rpc(Request(scope, receive), app.state.service, app.state.pubsub)
    else:
        response = envelope(405, "Method Not Allowed", headers={"Allow": "POST"})
    await response(scope, receive, send)


async def rpc(request: Request, service: SandboxService, pubsub: PubSub) -> Response:
    service.stats.arrived("rpc")
    try:
        payload = json.loads(await request.body())
    except ClientDisconnect:
        return Response(status_code=499)  # the caller is gone (killed mid-request)
    except ValueError:
        return JSONResponse(_error(None, RpcError(-32700, "Parse error")))
    calls = payload if isinstance(payload, list) else [payload]
    named: list[str | None] = []
    for call in calls:
        name, refused = _fault(service, call)
        if refused is not None:
            return refused  # one refused call refuses the whole request, batch or not
        if name == "blackhole":
            return await outages.hold(request)  # taken, nothing of it run or answered
        named.append(name)
    last = service.last_rpc_answer  # what `swapped` answers: another request's
    answers = [
        _answer(service, pubsub, call, name, last) for call, name in zip(calls, named, strict=True)
    ]
    if "lost_answer" in named:
        return await outages.hold(request)  # run, and its answer never comes
    if answers:
        service.last_rpc_answer = answers[-1]
    return JSONResponse(answers if isinstance(payload, list) else answers[0])


@router.websocket("/")
async def pubsub_socket(websocket: WebSocket, service: Service, pubsub: Hub) -> None:
    if service.injector.pubsub_hang():
        service.stats.refused["PubSub pubsub_hang"] += 1
        await outages.hold_socket(websocket)
        return
    await pubsub.serve(websocket, service.stats)


def _fault(service: SandboxService, call: Any) -> tuple[str | None, Response | None]:
    """The named fault drawn for this call, and the answer that refuses the whole request
    when there is one (429 and 503 as a node sends them, or a named refusal:
    `launchops.sandbox.rpc_faults`)."""
    if not isinstance(call, dict) or "method" not in call:
        return None, None
    method = str(call["method"])
    named = service.injector.rpc_fault(method)
    if named is not None:
        service.stats.refused[f"{method} {named}"] += 1
        if named in rpc_faults.REFUSALS:
            return named, rpc_faults.answer(named, call.get("id"), service.chain.slot)
        return named, None
    status = service.injector.refusal(method, service.faults.rpc_error_rate)
    if status is None:
        return None, None
    service.stats.refused[method] += 1
    error = RpcError(status, REFUSAL_TEXT.get(status, "Internal error"))
    headers = {"Retry-After": "1"} if status == 429 else None
    return None, JSONResponse(_error(call.get("id"), error), status_code=status, headers=headers)


def _answer(
    service: SandboxService,
    pubsub: PubSub,
    call: Any,
    lie: str | None = None,
    last: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One call's answer body, run at the view a `stale` lie sets, then as lie `lie` (one
    of rpc_faults.LIES, if any) tells it; `last` is what `swapped` answers."""
    if not isinstance(call, dict) or "method" not in call:
        return _error(None, RpcError(-32600, "Invalid request"))
    method = str(call["method"])
    try:
        result = service.rpc_call(method, call.get("params"), rpc_lies.behind(lie))
    except RpcError as exc:
        answer = _error(call.get("id"), exc)
    else:
        if method == "sendTransaction" and service.slot_ms == 0:
            asyncio.get_running_loop().call_soon(pubsub.advance_for_watchers)
        answer = {"jsonrpc": "2.0", "result": result, "id": call.get("id")}
    if lie in rpc_faults.LIES:
        answer = rpc_lies.tell(lie, service.chain, call, answer, service.rpc.view, last)
    return answer


def _error(request_id: Any, error: RpcError) -> dict[str, Any]:
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": "2.0", "error": body, "id": request_id}
