"""`ServiceClient`: the same calls as `AsyncServiceClient`, blocking."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

from launchops.api.client.service import AsyncServiceClient
from launchops.api.models import AgentRecord

P = ParamSpec("P")
R = TypeVar("R")


class ServiceClient:
    """Blocking facade over `AsyncServiceClient`: the same calls, run on a private event
    loop in a thread of its own (anyio's blocking portal), so it also works where a loop
    is already running (a notebook, an async framework)."""

    def __init__(self, base_url: str, **kwargs: Any) -> None:
        from anyio.from_thread import start_blocking_portal

        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._client: AsyncServiceClient = self._run(_make_client(base_url, kwargs))

    def _run(self, work: Awaitable[R]) -> R:
        async def awaited() -> R:
            return await work

        return self._portal.call(awaited)

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._run(self._client.aclose())
        finally:
            self._portal_cm.__exit__(None, None, None)

    def iter_agents(self, **filters: Any) -> Iterator[AgentRecord]:
        pages = self._client.iter_agents(**filters)
        while True:
            try:
                yield self._run(anext(pages))
            except StopAsyncIteration:
                return

    @staticmethod
    def _blocking(
        method: Callable[Concatenate[AsyncServiceClient, P], Awaitable[R]],
    ) -> Callable[Concatenate[ServiceClient, P], R]:
        def call(self: ServiceClient, *args: P.args, **kwargs: P.kwargs) -> R:
            return self._run(method(self._client, *args, **kwargs))  # type: ignore[arg-type]

        call.__name__ = method.__name__
        call.__doc__ = method.__doc__
        return call

    list_agents = _blocking(AsyncServiceClient.list_agents)
    get_agent_card = _blocking(AsyncServiceClient.get_agent_card)
    build_fund_tx = _blocking(AsyncServiceClient.build_fund_tx)
    build_withdraw_tx = _blocking(AsyncServiceClient.build_withdraw_tx)
    create_launch = _blocking(AsyncServiceClient.create_launch)
    register_launch = _blocking(AsyncServiceClient.register_launch)
    get_token = _blocking(AsyncServiceClient.get_token)
    get_launch = _blocking(AsyncServiceClient.get_launch)
    list_launches = _blocking(AsyncServiceClient.list_launches)
    claim_creator_rewards = _blocking(AsyncServiceClient.claim_creator_rewards)
    mint_agent = _blocking(AsyncServiceClient.mint_agent)
    get_agent = _blocking(AsyncServiceClient.get_agent)


async def _make_client(base_url: str, kwargs: dict[str, Any]) -> AsyncServiceClient:
    # Built inside the runner's loop so httpx binds its pool to that loop.
    return AsyncServiceClient(base_url, **kwargs)
