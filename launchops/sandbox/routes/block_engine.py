"""The block engine's JSON-RPC on Jito's paths: `/api/v1/bundles` (sendBundle,
getBundleStatuses, getInflightBundleStatuses, getTipAccounts) and `/api/v1/transactions`
(sendTransaction), with errors shaped as Jito's (a JSON-RPC error object)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from launchops.errors import RpcError
from launchops.sandbox.block_engine import TIP_ACCOUNTS
from launchops.sandbox.routes.state import Service
from launchops.sandbox.rpc import decode_tx
from launchops.sandbox.service import SandboxService

PREFIX = "/api/v1"
router = APIRouter(prefix=PREFIX, include_in_schema=False)


@router.post("/bundles")
async def bundles(request: Request, service: Service) -> JSONResponse:
    methods: dict[str, Callable[[list[Any]], Any]] = {
        "sendBundle": lambda params: _send_bundle(service, params),
        "getBundleStatuses": lambda params: service.block_engine.bundle_statuses(_first(params)),
        "getInflightBundleStatuses": lambda params: service.block_engine.inflight_statuses(
            _first(params)
        ),
        "getTipAccounts": lambda params: [str(key) for key in TIP_ACCOUNTS],
    }
    return await _serve(request, service, methods)


@router.post("/transactions")
async def transactions(request: Request, service: Service) -> JSONResponse:
    methods: dict[str, Callable[[list[Any]], Any]] = {
        "sendTransaction": lambda params: service.rpc_call("sendTransaction", params),
    }
    return await _serve(request, service, methods)


async def _serve(
    request: Request, service: SandboxService, methods: dict[str, Callable[[list[Any]], Any]]
) -> JSONResponse:
    try:
        call = json.loads(await request.body())
    except ValueError:
        return JSONResponse(_error(None, RpcError(-32700, "Parse error")))
    if not isinstance(call, dict) or not isinstance(call.get("method"), str):
        return JSONResponse(_error(None, RpcError(-32600, "Invalid request")))
    method, params = call["method"], call.get("params") or []
    service.stats.rpc[f"blockEngine.{method}"] += 1
    handler = methods.get(method)
    try:
        if handler is None:
            raise RpcError(-32601, "Method not found")
        if not isinstance(params, list):
            raise RpcError(-32602, "Invalid params: expected an array")
        result = handler(params)
    except RpcError as exc:
        return JSONResponse(_error(call.get("id"), exc))
    return JSONResponse({"jsonrpc": "2.0", "result": result, "id": call.get("id")})


def _send_bundle(service: SandboxService, params: list[Any]) -> str:
    encoded = _first(params)
    config = params[1] if len(params) > 1 and isinstance(params[1], dict) else {}
    encoding = str(config.get("encoding", "base58"))
    return service.block_engine.send_bundle([decode_tx(text, encoding) for text in encoded])


def _first(params: list[Any]) -> list[Any]:
    first = params[0] if params else None
    if not isinstance(first, list) or not all(isinstance(item, str) for item in first):
        raise RpcError(-32602, "Invalid params: expected an array of strings")
    return first


def _error(request_id: Any, error: RpcError) -> dict[str, Any]:
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": "2.0", "error": body, "id": request_id}
