"""What every step task shares: retries for transient faults only, and no caching, since
the journal (not Prefect's results) decides what a retry may do."""

from __future__ import annotations

from typing import Any

from prefect.cache_policies import NO_CACHE


def transient_only(task: Any, task_run: Any, state: Any) -> bool:
    try:
        state.result()
    except Exception as exc:  # the task's own exception, re-raised by Prefect
        return bool(getattr(exc, "transient", False))
    return False


STEP_TASK = {
    "cache_policy": NO_CACHE,
    "persist_result": False,
    "retries": 2,
    "retry_delay_seconds": [1, 5],
    "retry_condition_fn": transient_only,
}
