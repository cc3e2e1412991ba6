"""Every launch state change as a Prefect event, so an ops team can alert on it with an
automation (`launchops deploy --pool` makes one, in `flows/pool.py`): the event
`launchops.launch.<state>` about the resource `launchops.launch.<key>`, with the mint,
the genesis account and the network as related resources. What an event carries is what
the journal's row shows: never a key's secret. Alerts (needs_attention, register_failed,
failed) go through the journal's outbox instead.
"""

from __future__ import annotations

from typing import Any

from launchops.journal.alerts import ALERT_STATES, EVENT_PREFIX
from launchops.journal.records import StateChange
from launchops.states import NEEDS_A_PERSON


def launch_event(change: StateChange) -> dict[str, Any]:
    """The event of one state change, as `emit_event` takes it."""
    resource = {
        "prefect.resource.id": f"{EVENT_PREFIX}.{change.key}",
        "prefect.resource.name": change.key,
        "launchops.kind": str(change.kind),
        "launchops.state": str(change.state),
        "launchops.needs-a-person": str(change.state in NEEDS_A_PERSON).lower(),
    }
    related = [
        {
            "prefect.resource.id": f"solana.network.{change.network}",
            "prefect.resource.role": "network",
            "prefect.resource.name": change.network,
        }
    ]
    for role, address in (("mint", change.mint), ("genesis-account", change.genesis)):
        if address:
            related.append(
                {
                    "prefect.resource.id": f"solana.account.{address}",
                    "prefect.resource.role": role,
                    "prefect.resource.name": address,
                }
            )
    payload = {"state": str(change.state), "error": change.error} if change.error else None
    return {
        "event": f"{EVENT_PREFIX}.{change.state}",
        "resource": resource,
        "related": related,
        "payload": payload or {"state": str(change.state)},
    }


def emit_state_change(change: StateChange) -> None:
    """A journal watcher: the change as a Prefect event (queued, sent in the background,
    dropped if the server stays away). The states a person must hear about are not sent
    here: the journal's outbox keeps them until they are delivered (`tasks/alerts.py`)."""
    from prefect.events import emit_event

    if change.state not in ALERT_STATES:
        emit_event(**launch_event(change))
