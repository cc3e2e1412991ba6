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

from typing import TYPE_CHECKING

from launchops.lazy import lazy_exports
from launchops.version import __version__

if TYPE_CHECKING:
    from launchops.errors import LaunchOpsError
    from launchops.library.after import (
        claim_rewards,
        claim_rewards_sync,
        launch_status,
        launch_status_sync,
        list_launches,
        list_launches_sync,
        mint_agent,
        mint_agent_sync,
        watch_launches,
        watch_launches_sync,
    )
    from launchops.library.after_results import (
        AgentResult,
        ClaimResult,
        LaunchStatusResult,
        StatusChange,
        WatchResult,
    )
    from launchops.library.launches import (
        UnknownLaunch,
        batch,
        batch_sync,
        dry_run,
        dry_run_sync,
        fund_agents,
        fund_agents_sync,
        launch,
        launch_sync,
        resume,
        resume_sync,
        retry_registrations,
        retry_registrations_sync,
        transfer,
        transfer_sync,
    )
    from launchops.library.results import (
        BatchItem,
        BatchResult,
        LaunchResult,
    )
    from launchops.states import LaunchState

# Where each public name lives (imported from there when first used).
_MODULES = {
    "launchops.library.after": "claim_rewards launch_status list_launches mint_agent "
    "watch_launches",
    "launchops.library.after_results": "AgentResult ClaimResult LaunchStatusResult StatusChange "
    "WatchResult",
    "launchops.errors": "LaunchOpsError",
    "launchops.library.launches": "UnknownLaunch batch dry_run fund_agents launch resume "
    "retry_registrations transfer",
    "launchops.library.results": "BatchItem BatchResult LaunchResult",
    "launchops.states": "LaunchState",
}
_SYNC = ("launchops.library.after", "launchops.library.launches")  # each run has its `_sync` twin
_WHERE = {
    name + suffix: module
    for module, names in _MODULES.items()
    for name in names.split()
    for suffix in ("", "_sync")
    if suffix == "" or (module in _SYNC and name[0].islower())
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
    "dry_run",
    "dry_run_sync",
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
    "transfer",
    "transfer_sync",
    "watch_launches",
    "watch_launches_sync",
]


__getattr__, __dir__ = lazy_exports(globals(), _WHERE)
