"""Prefect flows: they compose tasks and hold no business logic of their own (the run is
assembled in `launchops.library.launches`). Installed as `launchops.flows`; a flow of your own
calls them as subflows:

    from launchops.flows import launch_flow

Each name loads its module when first used, so `import launchops.flows.outcome` does not
load every flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from launchops.lazy import lazy_exports

if TYPE_CHECKING:
    from launchops.flows.agents import mint_agent_flow
    from launchops.flows.batch import batch_flow, batch_part_flow
    from launchops.flows.funding import funding_flow
    from launchops.flows.launch import launch_flow
    from launchops.flows.registrations import registrations_flow
    from launchops.flows.rewards import claim_rewards_flow
    from launchops.flows.watch import watch_launches_flow

_WHERE = {
    "batch_flow": "launchops.flows.batch",
    "batch_part_flow": "launchops.flows.batch",
    "claim_rewards_flow": "launchops.flows.rewards",
    "funding_flow": "launchops.flows.funding",
    "launch_flow": "launchops.flows.launch",
    "mint_agent_flow": "launchops.flows.agents",
    "registrations_flow": "launchops.flows.registrations",
    "watch_launches_flow": "launchops.flows.watch",
}

__all__ = [
    "batch_flow",
    "batch_part_flow",
    "claim_rewards_flow",
    "funding_flow",
    "launch_flow",
    "mint_agent_flow",
    "registrations_flow",
    "watch_launches_flow",
]


__getattr__, __dir__ = lazy_exports(globals(), _WHERE)
