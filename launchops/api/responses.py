"""Answers into models, error answers into the typed errors of `launchops.errors`."""

from __future__ import annotations

import email.utils
import time
from typing import Any, TypeVar

import httpx
import pydantic

from launchops.api.errors import (
    APIStatusError,
    BadRequestError,
    ForbiddenError,
    NotFoundError,
    NotJsonError,
    RateLimitedError,
    ServerError,
    UnexpectedResponseError,
)
from launchops.api.fields import problems_of
from launchops.urls import shown

M = TypeVar("M", bound=pydantic.BaseModel)


_STATUS_ERRORS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    403: ForbiddenError,
    404: NotFoundError,
    429: RateLimitedError,
}


def error_from_response(response: httpx.Response) -> APIStatusError:
    """The typed error for an error answer, with the service's text and details."""
    status = response.status_code
    try:
        body: Any = response.json()
    except ValueError:  # a page (a proxy's, a CDN's) is never shown, only what it is
        body = None if _is_page(response) else (response.text[:2000] or None)
        error, details = _error_text(body, status) if body else (not_json(response), [])
    else:
        error, details = _error_text(body, status)
    cls = _STATUS_ERRORS.get(status) or (ServerError if status >= 500 else UnexpectedResponseError)
    where = {"method": response.request.method, "url": _url(response.request)}
    if cls is RateLimitedError:
        retry_after = _retry_after(response.headers.get("Retry-After"))
        return RateLimitedError(
            status, error, retry_after=retry_after, details=details, body=body, **where
        )
    return cls(status, error, details=details, body=body, **where)


def _url(request: httpx.Request) -> str:
    """The request's URL as an error keeps it: no user, password or query value."""
    return shown(str(request.url), path_keys=False)


def _error_text(body: Any, status: int) -> tuple[str, list[Any]]:
    if isinstance(body, dict):
        error = body.get("error")
        details = body.get("details")
        details = details if isinstance(details, list) else []
        if isinstance(error, str):
            return error, details
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"], details
        if isinstance(body.get("message"), str):
            return body["message"], details
    if isinstance(body, str) and body.strip():
        return " ".join(body.split())[:300], []
    return httpx.codes.get_reason_phrase(status) or f"HTTP {status}", []


def not_json(response: httpx.Response) -> str:
    """What an answer that is not JSON is, in a few words (never its text): its reason
    phrase, and whether it is an HTML page (a CDN's challenge, a proxy's error page)."""
    reason = httpx.codes.get_reason_phrase(response.status_code) or "HTTP"
    if _is_page(response):
        return f"{reason}: an HTML page, not the service's JSON (a proxy or CDN answered)"
    kind = response.headers.get("content-type", "").split(";")[0].strip() or "no content type"
    return f"{reason}: {kind}, not the service's JSON"


def _is_page(response: httpx.Response) -> bool:
    """An HTML page (by its type, or by its first character when it has none)."""
    kind = response.headers.get("content-type", "").split(";")[0].strip()
    return kind == "text/html" or response.text.lstrip()[:1] == "<"


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def json_body(response: httpx.Response) -> Any:
    """The answer's JSON; `NotJsonError` (transient: every call is safe to repeat) when it
    is not JSON."""
    try:
        return response.json()
    except ValueError:
        request = response.request
        raise NotJsonError(
            response.status_code,
            not_json(response),
            method=request.method,
            url=_url(request),
        ) from None


def parse(model: type[M], response: httpx.Response) -> M:
    """The answer's JSON as `model` (see `parse_body`)."""
    return parse_body(model, json_body(response), response)


def parse_body(model: type[M], body: Any, response: httpx.Response) -> M:
    """`body` as `model`; `UnexpectedResponseError` for a `{success: false}` envelope or
    a body that does not match the model (its first five problems named)."""
    if isinstance(body, dict) and body.get("success") is False:
        error, details = _error_text(body, response.status_code)
        raise _unexpected(response, error, body, details)
    try:
        return model.model_validate(body)
    except pydantic.ValidationError as exc:
        found = problems_of(exc, body)[:5]
        problems = "; ".join(f"{field}: {message}" for field, message in found)
        error = f"answer does not match {model.__name__}: {problems}"
        raise _unexpected(response, error, body) from None


def _unexpected(
    response: httpx.Response, error: str, body: Any, details: list[Any] | None = None
) -> UnexpectedResponseError:
    request = response.request
    return UnexpectedResponseError(
        response.status_code,
        error,
        details=details,
        body=body,
        method=request.method,
        url=_url(request),
    )
