"""A real HTTP server whose answers each test scripts, and which records every request.

It serves the client's tests for answers the sandbox gives only under fault injection
(exact Retry-After headers, malformed bodies, the public service's `{error: {message}}`).
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from launchops.api.client import RetryPolicy
from tests.support.loopback import serve

# The policy the client's tests give it: four attempts, each wait a few milliseconds.
FAST = RetryPolicy(attempts=4, initial_wait=0.01, max_wait=0.05)


@dataclass
class Answer:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    delay: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


class ScriptedService:
    def __init__(self) -> None:
        self.answers: dict[tuple[str, str], deque[Answer]] = defaultdict(deque)
        self.sticky: dict[tuple[str, str], Answer] = {}
        self.seen: list[Seen] = []
        self.url = ""  # set by `served`: the base of its /v1 API
        self.app = Starlette(routes=[Route("/{path:path}", self._handle, methods=["GET", "POST"])])

    def script(
        self, method: str, path: str, *answers: Answer, sticky: Answer | None = None
    ) -> None:
        """Queue answers for METHOD /v1/PATH; `sticky` answers once the queue is empty."""
        key = (method, "/v1/" + path.lstrip("/"))
        self.answers[key].extend(answers)
        if sticky is not None:
            self.sticky[key] = sticky

    def calls(self, method: str, path: str) -> list[Seen]:
        full = "/v1/" + path.lstrip("/")
        return [s for s in self.seen if s.method == method and s.path == full]

    async def _handle(self, request: Request) -> Response:
        import asyncio

        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        key = (request.method, request.url.path)
        self.seen.append(
            Seen(
                request.method,
                request.url.path,
                dict(request.query_params),
                dict(request.headers),
                body,
            )
        )
        queue = self.answers.get(key)
        answer = queue.popleft() if queue else self.sticky.get(key)
        if answer is None:
            return Response(json.dumps({"success": False, "error": "unscripted"}), status_code=599)
        if answer.delay:
            await asyncio.sleep(answer.delay)
        content = (
            answer.raw
            if answer.raw is not None
            else (b"" if answer.body is None else json.dumps(answer.body).encode())
        )
        headers = {"content-type": "application/json", **answer.headers}
        return Response(content, status_code=answer.status, headers=headers)


@contextmanager
def served() -> Iterator[ScriptedService]:
    """A scripted service serving over real HTTP, its `url` the base of its /v1 API."""
    scripted = ScriptedService()
    with serve(scripted.app) as url:
        scripted.url = url + "/v1"
        yield scripted
