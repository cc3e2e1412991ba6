"""The client's transport: one httpx pool, the retries of HTTP transients for every call
(as `launchops.retries` writes them), one deadline across a call's retries, after which
the service is gone for this client (`ServiceGone`: every later call fails at once); and
what every call shares (a request's body validated, an address in a path)."""

from __future__ import annotations

import time
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
import pydantic
from solders.pubkey import Pubkey

from launchops.api.cards import CardCache, MemoryCardCache
from launchops.api.errors import (
    APIStatusError,
    InvalidInputError,
    NetworkError,
    RequestTimeoutError,
    ServiceError,
    ServiceGone,
)
from launchops.api.fields import Network, problems_of
from launchops.api.responses import error_from_response, json_body
from launchops.retries import REGISTER_CALLS, SERVICE_CALLS, Outage, RetryPolicy
from launchops.urls import scrubbed, shown
from launchops.version import __version__
from launchops.web import verify_for

USER_AGENT = f"launchops/{__version__} (python-httpx)"
# The contract gives create and register no 404: one means the base URL leads elsewhere.
NEVER_NOT_FOUND = frozenset({"launches/create", "launches/register"})
M = TypeVar("M", bound=pydantic.BaseModel)
Address = Pubkey | str


class Transport:
    """The connection to the service's `/v1` API that every call of the client goes
    through. `base_url` includes the version prefix, e.g. `https://api.metaplex.com/v1`."""

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
        self.shown_url = shown(self.base_url)  # what errors say of it: no key
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
            verify=verify_for(self.base_url),
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
            f"the service at {self.shown_url}: {reason}; it is down, unreachable or refusing "
            "every call. Run the same command again later: every launch continues where it "
            "stopped"
        )

    async def _throttle(self, request: httpx.Request) -> None:
        """Wait for a slot of the rate limit shared by every launch in this process."""
        await self._limiter.acquire()

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _net(self, network: Network | str | None) -> str:
        return str(Network(network or self.network))

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
        url = f"{self.shown_url}/{path}"
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
                f"{method} {url}: {type(exc).__name__}: {_text(exc, self.base_url)}",
                method=method,
                url=url,
            ) from exc
        if response.status_code >= 400:
            error = error_from_response(response)
            if response.status_code == 404 and path in NEVER_NOT_FOUND:
                error = no_such_endpoint(error, self.shown_url, path)
            if not error.transient:
                self.outage.answered()  # a refusal is an answer: the service is there
            raise error
        if response.content and response.content.lstrip()[:1] not in (b"{", b"["):
            json_body(response)  # not the service's JSON (a CDN's page): NotJsonError, retried
        self.outage.answered()
        return response


def _text(exc: Exception, base_url: str) -> str:
    return scrubbed(str(exc), base_url) or "connection failed"


def no_such_endpoint(error: APIStatusError, base_url: str, path: str) -> APIStatusError:
    """A 404 where the contract has none, saying what to fix: the base URL."""
    text = (
        f"{error.error}: no {error.method} /{path} under {base_url}; is the base URL right? "
        "(the API's ends in /v1: --base-url, LAUNCHOPS_BASE_URL or the profile's base_url)"
    )
    where = {"method": error.method, "url": error.url}
    return type(error)(error.status, text, details=error.details, body=error.body, **where)


def validated(model: type[M], **values: Any) -> M:
    """A request's body as `model`, from the values given (None left out); a broken rule
    raises `InvalidInputError` naming each field and rule, before anything is sent."""
    data = {k: v for k, v in values.items() if v is not None}
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = problems_of(exc, data)
        text = "; ".join(f"{field}: {message}" for field, message in problems)
        raise InvalidInputError(f"invalid {model.__name__}: {text}", problems) from None


def segment(address: Address) -> str:
    """An address as one segment of a URL path."""
    return quote(str(address), safe="")
