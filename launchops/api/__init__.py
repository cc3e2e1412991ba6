"""The service's contract (models) and its client.

from launchops.api import AsyncServiceClient, LaunchConfig
"""

from launchops.api.client import (
    AsyncServiceClient,
    CachedCard,
    CardCache,
    MemoryCardCache,
    RetryPolicy,
    ServiceClient,
)
from launchops.api.errors import (
    APIStatusError,
    BadRequestError,
    ForbiddenError,
    InvalidInputError,
    LaunchOpsError,
    NetworkError,
    NotFoundError,
    RateLimitedError,
    RequestTimeoutError,
    ServerError,
    ServiceError,
    UnexpectedResponseError,
)
from launchops.api.fields import Network
from launchops.api.models import (
    AgentCard,
    AgentRecord,
    AgentsPage,
    CreateLaunchResponse,
    LaunchConfig,
    RegisterLaunchResponse,
    TokenData,
    TransactionResponse,
)

__all__ = [
    "APIStatusError",
    "AgentCard",
    "AgentRecord",
    "AgentsPage",
    "AsyncServiceClient",
    "BadRequestError",
    "CachedCard",
    "CardCache",
    "CreateLaunchResponse",
    "ForbiddenError",
    "InvalidInputError",
    "LaunchConfig",
    "LaunchOpsError",
    "MemoryCardCache",
    "Network",
    "NetworkError",
    "NotFoundError",
    "RateLimitedError",
    "RegisterLaunchResponse",
    "RequestTimeoutError",
    "RetryPolicy",
    "ServerError",
    "ServiceClient",
    "ServiceError",
    "TokenData",
    "TransactionResponse",
    "UnexpectedResponseError",
]
