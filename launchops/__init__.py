"""launchops: token launches on Solana from YAML files, resumable at every step.

    import launchops

    result = await launchops.launch("token.yaml", profile="sandbox")
    print(result.state, result.launch_page, result.mint)

    launchops.launch_sync("token.yaml")                 # blocking, also inside a notebook
    launchops.batch_sync(["launches/"], concurrency=8)  # many, resumable as a whole

Every run answers a frozen result (`LaunchResult`, `BatchResult`); failures that stop a
run are `LaunchOpsError`s (`launchops.errors`) with one-line messages. The Prefect flows
and tasks are `launchops.flows` and `launchops.tasks`. Importing this package stays light:
no Prefect, FastAPI or solana-py at import time (names load on first use).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from launchops.after_library import (
        claim_rewards,
        claim_rewards_sync,
        launch_status,
        launch_status_sync,
        list_launches,
        list_launches_sync,
        mint_agent,
        mint_agent_sync,
        watch_launches,
    )
    from launchops.after_results import (
        AgentResult,
        ClaimResult,
        LaunchStatusResult,
        StatusChange,
        WatchResult,
    )
    from launchops.errors import LaunchOpsError
    from launchops.library import (
        UnknownLaunch,
        batch,
        batch_sync,
        fund_agents,
        fund_agents_sync,
        launch,
        launch_sync,
        resume,
        resume_sync,
        retry_registrations,
        retry_registrations_sync,
    )
    from launchops.results import BatchItem, BatchResult, LaunchResult
    from launchops.states import LaunchState

_WHERE = {
    "AgentResult": "launchops.after_results",
    "ClaimResult": "launchops.after_results",
    "LaunchStatusResult": "launchops.after_results",
    "StatusChange": "launchops.after_results",
    "WatchResult": "launchops.after_results",
    "claim_rewards": "launchops.after_library",
    "claim_rewards_sync": "launchops.after_library",
    "launch_status": "launchops.after_library",
    "launch_status_sync": "launchops.after_library",
    "list_launches": "launchops.after_library",
    "list_launches_sync": "launchops.after_library",
    "mint_agent": "launchops.after_library",
    "mint_agent_sync": "launchops.after_library",
    "watch_launches": "launchops.after_library",
    "LaunchOpsError": "launchops.errors",
    "LaunchState": "launchops.states",
    "BatchItem": "launchops.results",
    "BatchResult": "launchops.results",
    "LaunchResult": "launchops.results",
    **{
        name: "launchops.library"
        for name in (
            "UnknownLaunch",
            "batch",
            "batch_sync",
            "fund_agents",
            "fund_agents_sync",
            "launch",
            "launch_sync",
            "resume",
            "resume_sync",
            "retry_registrations",
            "retry_registrations_sync",
        )
    },
}

__all__ = [
    "AgentResult",
    "BatchItem",
    "BatchResult",
    "ClaimResult",
    "LaunchOpsError",
    "LaunchResult",
    "LaunchState",
    "LaunchStatusResult",
    "StatusChange",
    "UnknownLaunch",
    "WatchResult",
    "__version__",
    "batch",
    "batch_sync",
    "claim_rewards",
    "claim_rewards_sync",
    "fund_agents",
    "fund_agents_sync",
    "launch",
    "launch_status",
    "launch_status_sync",
    "launch_sync",
    "list_launches",
    "list_launches_sync",
    "mint_agent",
    "mint_agent_sync",
    "resume",
    "resume_sync",
    "retry_registrations",
    "retry_registrations_sync",
    "watch_launches",
]


def __getattr__(name: str) -> Any:
    """The public names, imported when first used."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'launchops' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
