"""A launch's status change (graduated, ended) as a Prefect event: `launchops.launch.
<status>` about the resource `launchops.launch.<key>`, the genesis account and the network
related. Emitted once per change: the watch keeps what it announced in the journal."""

from __future__ import annotations

from typing import Any

from launchops.journal.alerts import EVENT_PREFIX
from launchops.library.after_results import StatusChange


def status_event(change: StatusChange) -> dict[str, Any]:
    """The event of one status change, as `emit_event` takes it."""
    return {
        "event": f"{EVENT_PREFIX}.{change.status}",
        "resource": {
            "prefect.resource.id": f"{EVENT_PREFIX}.{change.key}",
            "prefect.resource.name": change.key,
            "launchops.kind": "launch",
            "launchops.status": change.status,
        },
        "related": [
            {
                "prefect.resource.id": f"solana.network.{change.network}",
                "prefect.resource.role": "network",
                "prefect.resource.name": change.network,
            },
            {
                "prefect.resource.id": f"solana.account.{change.genesis_address}",
                "prefect.resource.role": "genesis-account",
                "prefect.resource.name": change.genesis_address,
            },
        ],
        "payload": {"status": change.status, "previous": change.previous},
    }


def emit_status_change(change: StatusChange) -> None:
    from prefect.events import emit_event

    emit_event(**status_event(change))
