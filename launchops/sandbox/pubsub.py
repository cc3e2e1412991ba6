"""Solana PubSub over WebSocket: signatureSubscribe and slotSubscribe, as a node serves
them on RPC port + 1 (web3.js, under the public JS client, confirms this way)."""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from solders.signature import Signature

from launchops.sandbox.chain import Chain
from launchops.sandbox.faults import Stats

LEVELS = {"processed": 0, "confirmed": 1, "finalized": 2}


@dataclass
class _Subscription:
    kind: str  # "signature" or "slot"
    queue: asyncio.Queue[dict[str, Any]]
    signature: Signature | None = None
    level: int = 2


class PubSub:
    def __init__(self, chain: Chain) -> None:
        self.chain = chain
        self.subscriptions: dict[int, _Subscription] = {}
        self._ids = itertools.count(1)
        chain.listeners.append(self._on_slot)

    def _on_slot(self, slot: int) -> None:
        for sub_id, sub in list(self.subscriptions.items()):
            if sub.kind == "slot":
                result = {"parent": slot - 1, "root": max(0, slot - 32), "slot": slot}
                sub.queue.put_nowait(_notification("slotNotification", sub_id, result))
            else:
                self._check_signature(sub_id, sub)

    def advance_for_watchers(self) -> None:
        """At --slot-ms 0 slots move when someone watches the chain; a signature subscriber
        watches it continuously, so a send it waits for moves the chain to `confirmed`."""
        for _ in range(2 + self.chain.faults.delay_slots):
            if not any(sub.kind == "signature" for sub in self.subscriptions.values()):
                return
            self.chain.advance()

    def _check_signature(self, sub_id: int, sub: _Subscription) -> None:
        assert sub.signature is not None
        status = self.chain.status(sub.signature)
        if status is None or LEVELS[status["confirmationStatus"]] < sub.level:
            return
        result = {"context": {"slot": self.chain.slot}, "value": {"err": status["err"]}}
        sub.queue.put_nowait(_notification("signatureNotification", sub_id, result))
        del self.subscriptions[sub_id]  # a signature subscription ends with its notification

    async def serve(self, websocket: WebSocket, stats: Stats) -> None:
        await websocket.accept()
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        mine: set[int] = set()
        sender = asyncio.create_task(self._send_all(websocket, queue))
        try:
            while True:
                message = json.loads(await websocket.receive_text())
                stats.rpc[str(message.get("method"))] += 1
                self._handle(message, queue, mine)
        except (WebSocketDisconnect, ValueError, RuntimeError):
            pass
        finally:
            sender.cancel()
            for sub_id in mine:
                self.subscriptions.pop(sub_id, None)

    async def _send_all(self, websocket: WebSocket, queue: asyncio.Queue[dict[str, Any]]) -> None:
        while True:
            await websocket.send_text(json.dumps(await queue.get()))

    def _handle(
        self, message: dict[str, Any], queue: asyncio.Queue[dict[str, Any]], mine: set[int]
    ) -> None:
        """Answer one request; a subscription's first notification may follow the answer."""
        request_id = message.get("id")
        method = message.get("method")
        params = message.get("params") or []
        try:
            if method == "signatureSubscribe":
                config = params[1] if len(params) > 1 and isinstance(params[1], dict) else {}
                level = LEVELS.get(config.get("commitment", "finalized"), 2)
                sub = _Subscription("signature", queue, Signature.from_string(params[0]), level)
                sub_id = self._add(sub, mine)
                queue.put_nowait({"jsonrpc": "2.0", "result": sub_id, "id": request_id})
                self._check_signature(sub_id, sub)
                return
            elif method == "slotSubscribe":
                result: Any = self._add(_Subscription("slot", queue), mine)
            elif method in ("signatureUnsubscribe", "slotUnsubscribe"):
                result = self.subscriptions.pop(int(params[0]), None) is not None
                mine.discard(int(params[0]))
            else:
                queue.put_nowait(_error(request_id, -32601, "Method not found"))
                return
        except (ValueError, TypeError, IndexError):
            queue.put_nowait(_error(request_id, -32602, "Invalid params"))
            return
        queue.put_nowait({"jsonrpc": "2.0", "result": result, "id": request_id})

    def _add(self, sub: _Subscription, mine: set[int]) -> int:
        sub_id = next(self._ids)
        self.subscriptions[sub_id] = sub
        mine.add(sub_id)
        return sub_id


def _notification(method: str, sub_id: int, result: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": method,
        "params": {"result": result, "subscription": sub_id},
    }


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": request_id}
