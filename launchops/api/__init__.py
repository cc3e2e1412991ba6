"""The service's contract (models) and its client.

from launchops.api import AsyncServiceClient, LaunchConfig
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Imported on first use (PEP 562): `launchops validate` needs the models, not httpx.
_HOME = {
    **dict.fromkeys(
        ["AsyncServiceClient", "CachedCard", "CardCache", "MemoryCardCache", "RetryPolicy"],
        "client",
    ),
    "ServiceClient": "client",
    **dict.fromkeys(
        [
            "APIStatusError",
            "BadRequestError",
            "ForbiddenError",
            "InvalidInputError",
            "LaunchOpsError",
            "NetworkError",
            "NotFoundError",
            "RateLimitedError",
            "RequestTimeoutError",
            "ServerError",
            "ServiceError",
            "UnexpectedResponseError",
        ],
        "errors",
    ),
    "Network": "fields",
    **dict.fromkeys(
        ["LaunchDetail", "MintAgentResponse", "NothingToClaim", "RewardsClaim"], "after"
    ),
    **dict.fromkeys(
        [
            "AgentCard",
            "AgentRecord",
            "AgentsPage",
            "CreateLaunchResponse",
            "LaunchConfig",
            "RegisterLaunchResponse",
            "TokenData",
            "TransactionResponse",
        ],
        "models",
    ),
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from launchops.api.after import LaunchDetail, MintAgentResponse, NothingToClaim, RewardsClaim
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
    "LaunchDetail",
    "LaunchOpsError",
    "MemoryCardCache",
    "MintAgentResponse",
    "Network",
    "NetworkError",
    "NotFoundError",
    "NothingToClaim",
    "RateLimitedError",
    "RegisterLaunchResponse",
    "RequestTimeoutError",
    "RetryPolicy",
    "RewardsClaim",
    "ServerError",
    "ServiceClient",
    "ServiceError",
    "TokenData",
    "TransactionResponse",
    "UnexpectedResponseError",
]
