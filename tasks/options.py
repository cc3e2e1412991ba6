"""What every step task shares: retries only for what nothing beneath the step retried
(`launchops.retries` writes who owns each retry), and no caching, since the journal (not
Prefect's results) decides what a retry may do."""

from __future__ import annotations

from typing import Any

from prefect.cache_policies import NO_CACHE

from launchops.retries import TASK_RETRIES, worth_a_task_retry


async def transient_only(task: Any, task_run: Any, state: Any) -> bool:
    """Retry a step only on a transient failure that nothing beneath it retried.

    Async on purpose: in an async task `state.result()` is a coroutine, and a sync check
    would never see the exception (Prefect awaits an async condition in either engine).
    """
    from launchops.tasks.stops import stopped

    if stopped(state):  # the launch stopped: the step ran, a retry would change nothing
        return False
    error = state.data if isinstance(state.data, BaseException) else None
    if error is None:
        try:
            await state.aresult()
        except Exception as exc:  # the task's own exception, re-raised by Prefect
            error = exc
    return worth_a_task_retry(error)


STEP_TASK = {
    "cache_policy": NO_CACHE,
    "persist_result": False,
    "retries": TASK_RETRIES.retries,
    "retry_delay_seconds": list(TASK_RETRIES.delays),
    "retry_condition_fn": transient_only,
}
