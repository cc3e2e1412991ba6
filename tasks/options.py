"""What every step task shares: retries for transient faults only, and no caching, since
the journal (not Prefect's results) decides what a retry may do."""

from __future__ import annotations

from typing import Any

from prefect.cache_policies import NO_CACHE


async def transient_only(task: Any, task_run: Any, state: Any) -> bool:
    """Retry a step only when what it raised says repeating it may succeed.

    Async on purpose: in an async task `state.result()` is a coroutine, and a sync check
    would never see the exception (Prefect awaits an async condition in either engine).
    """
    error = state.data if isinstance(state.data, BaseException) else None
    if error is None:
        try:
            await state.aresult()
        except Exception as exc:  # the task's own exception, re-raised by Prefect
            error = exc
    return bool(getattr(error, "transient", False))


STEP_TASK = {
    "cache_policy": NO_CACHE,
    "persist_result": False,
    "retries": 2,
    "retry_delay_seconds": [1, 5],
    "retry_condition_fn": transient_only,
}
