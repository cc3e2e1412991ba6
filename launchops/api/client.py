"""The client of the service: one async implementation over httpx, and a sync facade.

Every failure is a typed error from `launchops.api.errors`. The client owns the retries
of HTTP transients (no answer, 429, 5xx) for every call, as `launchops.retries` writes:
the reads, the builders and the idempotent register are safe to repeat, and so is a
create whose answer was lost (unsigned, it can never land). Every call is bounded by one
deadline across its retries (`deadline`); a call that got no usable answer for all of it
makes the service gone for this client (`ServiceGone`: every later call fails at once).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from decimal import Decimal
from typing import Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import quote

import httpx
import pydantic
from solders.pubkey import Pubkey

from launchops import __version__
from launchops.api.after_calls import AfterLaunchCalls
from launchops.api.cards import CachedCard, CardCache, FileCardCache, MemoryCardCache
from launchops.api.errors import (
    InvalidInputError,
    NetworkError,
    RequestTimeoutError,
    ServiceError,
    ServiceGone,
)
from launchops.api.fields import Network, problems_of
from launchops.api.models import (
    AgentCard,
    AgentLink,
    AgentRecord,
    AgentsPage,
    AgentsQuery,
    CreateLaunchRequest,
    CreateLaunchResponse,
    FundRequest,
    LaunchConfig,
    PaginatedAgentsResponse,
    RegisterLaunchRequest,
    RegisterLaunchResponse,
    TokenData,
    TokenResponse,
    TransactionResponse,
    WithdrawRequest,
)
from launchops.api.responses import error_from_response, json_body, parse, parse_body
from launchops.retries import REGISTER_CALLS, SERVICE_CALLS, Outage, RetryPolicy

__all__ = [
    "USER_AGENT",
    "AsyncServiceClient",
    "CachedCard",
    "CardCache",
    "FileCardCache",
    "MemoryCardCache",
    "RetryPolicy",
    "ServiceClient",
]

USER_AGENT = f"launchops/{__version__} (python-httpx)"
M = TypeVar("M", bound=pydantic.BaseModel)
P = ParamSpec("P")
R = TypeVar("R")
Address = Pubkey | str


class AsyncServiceClient(AfterLaunchCalls):
    """Async client of the service's `/v1` API (after a launch: `AfterLaunchCalls`).

    `base_url` includes the version prefix, e.g. `https://api.metaplex.com/v1`.
    """

    def __init__(
        self,
        base_url: str,
        *,
        network: Network | str = Network.MAINNET,
        timeout: float | httpx.Timeout = 30.0,
        retry: RetryPolicy | None = None,
        card_cache: CardCache | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 32,
        limiter: Any = None,
        deadline: float | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.deadline = deadline  # one call across its retries (None: the policy's attempts)
        self.outage = Outage(self._gone, deadline or float("inf"))
        self.network = Network(network)
        self.retry = retry or SERVICE_CALLS
        self.register_retry = retry or REGISTER_CALLS
        self.card_cache: CardCache = card_cache if card_cache is not None else MemoryCardCache()
        self._http = httpx.AsyncClient(
            base_url=self.base_url + "/",
            # No TLS on an http:// service (the sandbox): skip loading the CA bundle (~25 ms);
            # redirects are not followed, so nothing reaches https unverified.
            verify=not self.base_url.startswith("http://"),
            timeout=timeout,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
            transport=transport,
            event_hooks={"request": [self._throttle]} if limiter is not None else None,
        )
        self._limiter = limiter

    def _gone(self, reason: str) -> ServiceGone:
        return ServiceGone(
            f"the service at {self.base_url}: {reason}; it is down, unreachable or refusing "
            "every call. Run the same command again later: every launch continues where it "
            "stopped"
        )

    async def _throttle(self, request: httpx.Request) -> None:
        """Wait for a slot of the rate limit shared by every launch in this process."""
        await self._limiter.acquire()

    async def __aenter__(self) -> AsyncServiceClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # ── agents ──────────────────────────────────────────────────────────────

    async def list_agents(
        self,
        *,
        network: Network | str | None = None,
        page: int = 1,
        page_size: int = 24,
        query: str | None = None,
        sort: str = "latest",
        active_only: bool | None = None,
        has_agent_token: bool | None = None,
        has_services: bool | None = None,
        spotlight: bool | None = None,
    ) -> AgentsPage:
        """One page of GET /agents."""
        params = _validated(
            AgentsQuery,
            network=network or self.network,
            page=page,
            page_size=page_size,
            query=query,
            sort=sort,
            active_only=active_only,
            has_agent_token=has_agent_token,
            has_services=has_services,
            spotlight=spotlight,
        ).to_params()
        response = await self._call("GET", "agents", params=params)
        return parse(PaginatedAgentsResponse, response).data

    async def iter_agents(
        self, *, page_size: int = 100, **filters: Any
    ) -> AsyncIterator[AgentRecord]:
        """Every agent matching the filters, walking all pages."""
        page = 1
        while True:
            result = await self.list_agents(page=page, page_size=page_size, **filters)
            for agent in result.agents:
                yield agent
            if not result.agents or page >= result.total_pages:
                return
            page += 1

    async def get_agent_card(
        self, address: Address, *, network: Network | str | None = None
    ) -> AgentCard:
        """The agent's A2A card; a repeated call sends If-None-Match and reuses a 304."""
        net = Network(network or self.network)
        key = f"{net}:{address}"
        cached = self.card_cache.get(key)
        headers = {"If-None-Match": cached.etag} if cached else None
        path = f"agents/{_segment(address)}/agent-card.json"
        response = await self._call("GET", path, params={"network": net}, headers=headers)
        if response.status_code == 304 and cached:
            return AgentCard.model_validate(cached.card)
        body = json_body(response)
        card = parse_body(AgentCard, body, response)
        if etag := response.headers.get("ETag"):
            self.card_cache.put(key, CachedCard(etag=etag, card=body))
        return card

    async def build_fund_tx(
        self,
        address: Address,
        *,
        sender: Address,
        amount: Decimal | str | float,
        memo: str,
        network: Network | str | None = None,
    ) -> TransactionResponse:
        """An unsigned transaction moving `amount` SOL from `sender` to the agent's wallet."""
        body = _validated(
            FundRequest, sender=sender, amount=amount, memo=memo, network=network or self.network
        )
        response = await self._call("POST", f"agents/{_segment(address)}/fund", json=body.to_wire())
        return parse(TransactionResponse, response)

    async def build_withdraw_tx(
        self,
        address: Address,
        *,
        sender: Address,
        amount: Decimal | str | float,
        network: Network | str | None = None,
    ) -> TransactionResponse:
        """An unsigned transaction moving `amount` SOL from the agent's wallet to its owner."""
        body = _validated(
            WithdrawRequest, sender=sender, amount=amount, network=network or self.network
        )
        path = f"agents/{_segment(address)}/withdraw"
        response = await self._call("POST", path, json=body.to_wire())
        return parse(TransactionResponse, response)

    # ── launches ────────────────────────────────────────────────────────────

    @staticmethod
    def create_body(
        wallet: Address, launch: LaunchConfig, *, agent: AgentLink | None = None
    ) -> dict[str, Any]:
        """The body of POST /launches/create, as the public JS client writes it."""
        return _validated(CreateLaunchRequest, wallet=wallet, launch=launch, agent=agent).to_wire()

    async def create_launch(
        self, wallet: Address, launch: LaunchConfig, *, agent: AgentLink | None = None
    ) -> CreateLaunchResponse:
        """POST /launches/create (for an agent, when `agent` is given). Transient failures
        are retried: a launch whose answer was lost was never signed, so it can never land."""
        body = self.create_body(wallet, launch, agent=agent)
        response = await self._call("POST", "launches/create", json=body)
        return parse(CreateLaunchResponse, response)

    async def register_launch(
        self,
        genesis_account: Address,
        launch: LaunchConfig,
        *,
        twitter_verification_token: str | None = None,
        agent: AgentLink | None = None,
        creator_wallet: Address | None = None,
    ) -> RegisterLaunchResponse:
        """POST /launches/register; idempotent, so transient failures are retried. The body
        is the public client's: the create body again (wallet, agent, launch) with the
        genesis account, network, creator's wallet and Twitter verification token."""
        body = _validated(
            RegisterLaunchRequest,
            genesis_account=genesis_account,
            network=launch.network,
            creator_wallet=creator_wallet,
            # An empty token is left out, as the public client does.
            twitter_verification_token=twitter_verification_token or None,
            agent=agent,
            wallet=launch.public_key,
            build_all_tx=True,
            launch=launch,
        )
        response = await self._call(
            "POST", "launches/register", json=body.to_wire(), retry=self.register_retry
        )
        return parse(RegisterLaunchResponse, response)

    async def get_token(self, mint: Address, *, network: Network | str | None = None) -> TokenData:
        """Every launch of a token, with its base token metadata and socials."""
        params = {"network": str(Network(network or self.network))}
        response = await self._call("GET", f"tokens/{_segment(mint)}", params=params)
        return parse(TokenResponse, response).data

    # ── transport ───────────────────────────────────────────────────────────

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
        retry: RetryPolicy | None = None,
    ) -> httpx.Response:
        policy = (retry or self.retry).within(self.deadline)
        self.outage.check()
        started = time.monotonic()
        try:
            async for attempt in policy.retrying():
                with attempt:
                    left = (
                        None
                        if self.deadline is None
                        else self.deadline - (time.monotonic() - started)
                    )
                    return await self._send(
                        method, path, params=params, json=json, headers=headers, left=left
                    )
        except ServiceError as exc:
            if not (exc.transient and exc.retried) or self.deadline is None:
                raise
            raise self.outage.exhausted(exc) from None
        raise AssertionError("unreachable: tenacity reraises the last error")

    async def _send(
        self, method: str, path: str, *, left: float | None = None, **kw: Any
    ) -> httpx.Response:
        url = f"{self.base_url}/{path}"
        if left is not None:  # no attempt outlasts what is left of the call's deadline
            timeout = self._http.timeout.read or left
            kw["timeout"] = max(min(timeout, left), 0.5)
        try:
            response = await self._http.request(method, path, **kw)
        except httpx.TimeoutException as exc:
            raise RequestTimeoutError(
                f"{method} {url}: no answer in time ({type(exc).__name__})", method=method, url=url
            ) from exc
        except httpx.TransportError as exc:
            raise NetworkError(
                f"{method} {url}: {type(exc).__name__}: {exc or 'connection failed'}",
                method=method,
                url=url,
            ) from exc
        if response.status_code >= 400:
            error = error_from_response(response)
            if not error.transient:
                self.outage.answered()  # a refusal is an answer: the service is there
            raise error
        if response.content and response.content.lstrip()[:1] not in (b"{", b"["):
            json_body(response)  # not the service's JSON (a CDN's page): NotJsonError, retried
        self.outage.answered()
        return response


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


# ── answers ─────────────────────────────────────────────────────────────────


def _validated(model: type[M], **values: Any) -> M:
    data = {k: v for k, v in values.items() if v is not None}
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = problems_of(exc, data)
        text = "; ".join(f"{field}: {message}" for field, message in problems)
        raise InvalidInputError(f"invalid {model.__name__}: {text}", problems) from None


def _segment(address: Address) -> str:
    return quote(str(address), safe="")
