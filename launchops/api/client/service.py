"""`AsyncServiceClient`: every call of the service's `/v1` API, async, over one transport."""

from __future__ import annotations

from launchops.api.client.after import AfterLaunchCalls
from launchops.api.client.agents import AgentCalls
from launchops.api.client.launches import LaunchCalls


class AsyncServiceClient(AgentCalls, LaunchCalls, AfterLaunchCalls):
    """Async client of the service's `/v1` API: the agents' calls, a launch's, and those
    after a launch, over one transport (`Transport`: its retries and deadline).

    `base_url` includes the version prefix, e.g. `https://api.metaplex.com/v1`.
    """
