"""The service's error answers, built from the contract's models: the `{success: false,
error, details?}` envelope (`ErrorEnvelope`) and the read endpoints' `{error: {message}}`
(`ReadError`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from solders.pubkey import Pubkey

from launchops.api.fields import clean_loc, error_message
from launchops.api.models import ErrorDetail, ErrorEnvelope, ReadError, ReadErrorMessage

INVALID_INPUT = "Invalid input data"


def envelope(
    status: int,
    error: str,
    details: Sequence[ErrorDetail | str] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """The envelope; `details` left out when there are none, as the spec's examples do."""
    body = ErrorEnvelope(error=error, details=list(details) if details else None)
    response = JSONResponse(body.to_wire(), status_code=status)
    response.headers.update(headers or {})
    return response


def read_error(status: int, message: str) -> JSONResponse:
    """The `{error: {message}}` shape the public service uses on its read endpoints."""
    body = ReadError(error=ReadErrorMessage(message=message))
    return JSONResponse(body.to_wire(), status_code=status)


def validation_details(exc: RequestValidationError) -> list[ErrorDetail]:
    """FastAPI's errors as the envelope's details: `{path: [...], message}` per problem."""
    body = getattr(exc, "body", None)
    details = []
    for error in exc.errors():
        loc = tuple(error.get("loc", ()))
        source = loc[0] if loc else None
        where = loc[1:] if source in ("body", "query", "path") else loc
        path = clean_loc(where, body if source == "body" else None)
        details.append(ErrorDetail(path=list(path), message=error_message(error)))
    return details


def public_key(text: str) -> Pubkey | None:
    """A path or query value read as a public key; None when it is not one."""
    try:
        return Pubkey.from_string(text)
    except ValueError:
        return None


def not_a_key(field: str) -> JSONResponse:
    detail = ErrorDetail(path=[field], message="must be a base58 public key")
    return envelope(400, INVALID_INPUT, [detail])
