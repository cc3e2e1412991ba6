"""How a flow run ends in Prefect: in a state that tells the truth, with a line or two of
log that says why.

A run whose launches did not all end registered (or left to another worker) ends in a
FAILED-type state named for what happened ("Needs attention" when a person must act,
"Unfinished" when a re-run or the registration retry will), its message the counts by
state; so the UI is not all green and Prefect's ordinary "flow run failed" notification
fires. The run logs one summary line at INFO and one WARNING per launch that needs a
person: lines per run, not per step. They go through their own logger, kept at INFO so
they reach the API even when the console is quieter (`PREFECT_LOGGING_LEVEL=WARNING`, the
command line's default); the command line leaves them out of the terminal (it prints the
same). The callers still get the result: `result_of(await flow(..., return_state=True))`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, TypeVar

from prefect.exceptions import MissingResult
from prefect.logging import get_run_logger
from prefect.logging.loggers import PrefectLogAdapter
from prefect.states import State, StateType

from launchops.errors import FlowResultLost
from launchops.library.results import BatchResult, LaunchResult
from launchops.states import NEEDS_A_PERSON

SUMMARY_LOGGER = "prefect.flow_runs.summary"  # launchops/cli/oneline.py spells it too
NEEDS_ATTENTION = "Needs attention"
UNFINISHED = "Unfinished"
# What a person must look at: a launch that needs one, a file that did not validate.
FOR_A_PERSON = frozenset({*NEEDS_A_PERSON, "invalid", "duplicate"})

R = TypeVar("R")


def summary_logger() -> logging.LoggerAdapter[Any]:
    """The flow run's logger for its summary lines, at INFO whatever the console's level."""
    logger = logging.getLogger(SUMMARY_LOGGER)
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)
    return PrefectLogAdapter(logger, extra=dict(get_run_logger().extra or {}))


def counts_line(counts: dict[str, int], noun: str = "launches") -> str:
    """`12 launches: 11 registered, 1 needs_attention`."""
    parts = ", ".join(f"{n} {state}" for state, n in counts.items())
    return f"{sum(counts.values())} {noun}: {parts or 'none'}"


def batch_end(result: BatchResult, noun: str = "launches") -> BatchResult | State[Any]:
    """Log the batch's summary (and each launch for a person), and answer what the flow
    returns: the result when every launch finished, else a FAILED-type state holding it."""
    logger = summary_logger()
    line = counts_line(dict(result.counts), noun)
    logger.info("%s", line)
    for item in result.items:
        if item.state in FOR_A_PERSON:
            name = Path(item.file).name if item.file else ""
            where = f" ({name})" if name and item.file != item.key else ""
            reason = f": {item.error}" if item.error else ""
            logger.warning("%s %s%s%s", item.key or item.file, item.state, reason, where)
    if result.ok:
        return result
    person = any(item.state in FOR_A_PERSON for item in result.items)
    return _failed(NEEDS_ATTENTION if person else UNFINISHED, line, result)


def launch_end(result: LaunchResult) -> LaunchResult | State[Any]:
    """The same for one launch: registered, or a FAILED-type state with its reason."""
    logger = summary_logger()
    reason = f": {result.error}" if result.error else ""
    line = f"{result.key} {result.state}{reason}"
    if result.finished:
        logger.info("%s", line)
        return result
    if result.needs_a_person:
        logger.warning("%s", line)
    return _failed(NEEDS_ATTENTION if result.needs_a_person else UNFINISHED, line, result)


class NotAllFinished(Exception):
    """What `await batch_flow(...)` (without `return_state=True`) raises when the flow run
    ended in such a FAILED-type state: its message the counts, `result` the flow's result.
    """

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result


def _failed(name: str, message: str, data: Any) -> State[Any]:
    # The state holds an exception that holds the result: a caller that lets Prefect raise
    # gets one clear line (not "Unexpected result for failed state"), `result_of` the data.
    error = NotAllFinished(message, data)
    return State(type=StateType.FAILED, name=name, message=message, data=error)


async def result_of(state: State[R]) -> R:
    """What a flow answered, from the state `flow(..., return_state=True)` gives: also
    from a FAILED-type state the flow returned itself; an exception the run raised, raised.
    """
    try:
        result: Any = await state.aresult(raise_on_failure=False)
    except MissingResult:
        # The run's own end was refused: the server already held one (a retried request).
        raise FlowResultLost(
            f"the flow run ended ({state.name}), but Prefect's server answered its end "
            "without the result (it already had one: a request retried under load); "
            "what it did is in the journal: run the same command again to have it reported"
        ) from None
    if isinstance(result, NotAllFinished):
        return result.result
    if isinstance(result, BaseException):
        raise result
    return result


__all__ = [
    "NEEDS_ATTENTION",
    "SUMMARY_LOGGER",
    "UNFINISHED",
    "NotAllFinished",
    "batch_end",
    "counts_line",
    "launch_end",
    "result_of",
]
