"""Every error that launchops raises.

    LaunchOpsError
    ├── InvalidInputError ........ input rejected before anything was sent (names the field)
    │   └── LaunchFileError ...... a launch file broke rules: file, line, field and rule each
    └── ServiceError ............. talking to the service went wrong
        ├── NetworkError ......... no HTTP answer: connect failure, reset, protocol error
        │   └── RequestTimeoutError
        └── APIStatusError ....... the service answered with an error (status, error, details)
            ├── BadRequestError .......... 400: invalid input, validation failure
            ├── ForbiddenError ........... 403: e.g. withdraw by a non-owner
            ├── NotFoundError ............ 404
            ├── RateLimitedError ......... 429, with `retry_after` seconds when given
            ├── ServerError .............. 5xx
            └── UnexpectedResponseError .. any other status, or a body that is not the contract

`transient` (on every error) tells whether repeating the same call may succeed: network
errors, 429 and 5xx are; 400, 403 and 404 are not. `retried` is set on an error whose
owner already repeated it (`launchops.retries`): nobody above repeats it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "APIStatusError",
    "BadRequestError",
    "ForbiddenError",
    "InvalidInputError",
    "LaunchFileError",
    "LaunchOpsError",
    "NetworkError",
    "NotFoundError",
    "Problem",
    "RateLimitedError",
    "RequestTimeoutError",
    "ServerError",
    "ServiceError",
    "UnexpectedResponseError",
]


class LaunchOpsError(Exception):
    """Base of every error launchops raises on purpose."""

    transient: bool = False  # repeating the same call may succeed
    retried: bool = False  # its owner repeated it already, as launchops.retries says


class InvalidInputError(LaunchOpsError):
    """Input failed local validation; `problems` lists (field, message) pairs."""

    def __init__(self, message: str, problems: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


@dataclass(frozen=True)
class Problem:
    """One broken rule of a launch file, where it is."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}"


class LaunchFileError(InvalidInputError):
    """A launch file failed validation; `file_problems` says where and why, each."""

    def __init__(self, problems: list[Problem]) -> None:
        self.file_problems = problems
        text = "\n".join(str(p) for p in problems)
        super().__init__(
            text, [(f"{p.file}:{p.line or '-'} {p.field}", p.message) for p in problems]
        )


class ServiceError(LaunchOpsError):
    """A call to the service failed."""

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        super().__init__(message)
        self.method = method
        self.url = url


class NetworkError(ServiceError):
    """No HTTP answer came back (connect error, reset connection, protocol error)."""

    transient = True


class RequestTimeoutError(NetworkError):
    """The service did not answer in time."""


class APIStatusError(ServiceError):
    """The service answered with an error status.

    `error` is the service's error text (the envelope's `error` string, or the
    `error.message` of the read endpoints), `details` its validation details if any,
    `body` the decoded body as received.
    """

    def __init__(
        self,
        status: int,
        error: str,
        *,
        details: list[Any] | None = None,
        body: Any = None,
        method: str = "",
        url: str = "",
    ) -> None:
        self.status = status
        self.error = error
        self.details = details or []
        self.body = body
        self.transient = status == 429 or status >= 500
        super().__init__(self._describe(), method=method, url=url)

    def _describe(self) -> str:
        text = f"{self.status} {self.error}"
        if self.details:
            shown = "; ".join(_detail_text(d) for d in self.details[:5])
            more = f" (+{len(self.details) - 5} more)" if len(self.details) > 5 else ""
            text += f": {shown}{more}"
        return text


class BadRequestError(APIStatusError):
    """400: the service rejected the request's input."""


class ForbiddenError(APIStatusError):
    """403: the caller may not do this (e.g. withdraw from an agent it does not own)."""


class NotFoundError(APIStatusError):
    """404: no such agent, card or token."""


class RateLimitedError(APIStatusError):
    """429: too many requests; `retry_after` is the wait the service asked for, if any."""

    def __init__(self, status: int, error: str, *, retry_after: float | None = None, **kw: Any):
        self.retry_after = retry_after
        super().__init__(status, error, **kw)


class ServerError(APIStatusError):
    """5xx: the service failed."""


class UnexpectedResponseError(APIStatusError):
    """A status the contract does not name, or a body that does not match the contract."""


def _detail_text(detail: Any) -> str:
    if isinstance(detail, dict):
        where = detail.get("path") or detail.get("field") or detail.get("loc")
        if isinstance(where, list):
            where = ".".join(str(p) for p in where)
        message = detail.get("message") or detail.get("msg") or detail
        return f"{where}: {message}" if where else str(message)
    return str(detail)
