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
    RateLimitedError,
    ServerError,
    UnexpectedResponseError,
)
from launchops.api.fields import problems_of

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
    except ValueError:
        body = response.text[:2000] or None
    error, details = _error_text(body, status)
    cls = _STATUS_ERRORS.get(status) or (ServerError if status >= 500 else UnexpectedResponseError)
    where = {"method": response.request.method, "url": str(response.request.url)}
    if cls is RateLimitedError:
        retry_after = _retry_after(response.headers.get("Retry-After"))
        return RateLimitedError(
            status, error, retry_after=retry_after, details=details, body=body, **where
        )
    return cls(status, error, details=details, body=body, **where)


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
        return body.strip()[:300], []
    return httpx.codes.get_reason_phrase(status) or f"HTTP {status}", []


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
    """The answer's JSON; `UnexpectedResponseError` when it is not JSON."""
    try:
        return response.json()
    except ValueError:
        raise _unexpected(response, "the answer is not JSON", response.text[:500]) from None


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
        url=str(request.url),
    )
