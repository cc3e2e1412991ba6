"""The service's errors, as the client library raises them: the part of launchops' one
error tree (`launchops.errors`, drawn at its top) that a service call can end in."""

from launchops.errors import (
    APIStatusError,
    BadRequestError,
    ForbiddenError,
    InvalidInputError,
    LaunchFileError,
    LaunchOpsError,
    ModelInputError,
    NetworkError,
    NotFoundError,
    NotJsonError,
    Problem,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    ServiceError,
    ServiceGone,
    UnexpectedResponseError,
)

__all__ = [
    "APIStatusError",
    "BadRequestError",
    "ForbiddenError",
    "InvalidInputError",
    "LaunchFileError",
    "LaunchOpsError",
    "ModelInputError",
    "NetworkError",
    "NotFoundError",
    "NotJsonError",
    "Problem",
    "RateLimitedError",
    "RequestTimeoutError",
    "ServerError",
    "ServiceError",
    "ServiceGone",
    "UnexpectedResponseError",
]
