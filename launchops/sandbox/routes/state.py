"""What the routes take from the app, through FastAPI's dependency injection: the one
`SandboxService` and the PubSub hub that `build_app` keeps on `app.state`."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from launchops.sandbox.pubsub import PubSub
from launchops.sandbox.service import SandboxService


# async: FastAPI would run a plain `def` dependency in its thread pool, once per request.
async def _service(connection: HTTPConnection) -> SandboxService:
    service: SandboxService = connection.app.state.service
    return service


async def _pubsub(connection: HTTPConnection) -> PubSub:
    pubsub: PubSub = connection.app.state.pubsub
    return pubsub


Service = Annotated[SandboxService, Depends(_service)]
Hub = Annotated[PubSub, Depends(_pubsub)]
