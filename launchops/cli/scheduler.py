"""A Prefect server of `deploy --serve`'s own, when no PREFECT_API_URL is configured.

Prefect's temporary server runs only the services marked for ephemeral servers (the
task-run recorder, the event persister): no scheduler, so a schedule served against it
never makes a run. With no server configured, `deploy --serve` runs this one instead:
Prefect's server with every service `prefect server start` runs (the scheduler among
them), on a free loopback port, on PREFECT_HOME's database, no UI, for as long as the
command (`launchops.cli.prefect_server`: it dies with this process).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from launchops.cli.prefect_server import prefect_server

# A deployment made (or changed) now is scheduled within a couple of seconds, every other
# one within ten; the serving runner asks for due runs every few seconds. An environment
# that sets any of these keeps its value.
SCHEDULING = {
    "PREFECT_SERVER_SERVICES_SCHEDULER_RECENT_DEPLOYMENTS_LOOP_SECONDS": "2",
    "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "10",
    "PREFECT_RUNNER_POLL_FREQUENCY": "3",
}


@contextmanager
def scheduling_server(timeout: float = 120.0) -> Iterator[str]:
    """Prefect's server with its services, started here and stopped after the block (and
    with this process, however it ends); yields its API URL. A server that does not come
    up is one error line."""
    for name, value in SCHEDULING.items():
        os.environ.setdefault(name, value)
    with prefect_server(ephemeral=False, timeout=timeout, what="the schedules") as url:
        yield url


__all__ = ["SCHEDULING", "scheduling_server"]
