"""The client of the service: one async implementation over httpx, and a sync facade.

Every failure is a typed error from `launchops.api.errors`. The client owns the retries
of HTTP transients (no answer, 429, 5xx) for every call, as `launchops.retries` writes:
the reads, the builders and the idempotent register are safe to repeat, and so is a
create whose answer was lost (unsigned, it can never land). Every call is bounded by one
deadline across its retries (`deadline`); a call that got no usable answer for all of it
makes the service gone for this client (`ServiceGone`: every later call fails at once).
"""

from launchops.api.cards import CachedCard, CardCache, FileCardCache, MemoryCardCache
from launchops.api.client.blocking import ServiceClient
from launchops.api.client.service import AsyncServiceClient
from launchops.api.client.transport import USER_AGENT
from launchops.retries import RetryPolicy

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
