"""Who retries what. Each kind of failure has exactly one owner, and its policy is here.

    failure                                        owner               policy
    ---------------------------------------------  ------------------  --------------------
    a service call: no answer, 429, 5xx            the service client  SERVICE_CALLS
      ... register (idempotent, everything landed)   the service client  REGISTER_CALLS
    register answering 400 "not found": the        the register step   INDEXER_WAIT, for
      service has not indexed the launch yet                             the profile's
                                                                         register_index_seconds
    an RPC call: no answer, 429, 5xx               ChainRpc            RPC_CALLS, within
                                                                         the profile's
                                                                         rpc_call_seconds
    a blockhash expired with nothing landed        the runner          create_again(n)
    a transient failure nothing beneath retried    the Prefect task    TASK_RETRIES
      (e.g. the journal's database unreachable)

Nothing retries what its owner already gave up on: an error that was retried carries
`retried = True`, and a Prefect task repeats only a transient error without it. So a
register answering 503 for good is asked `REGISTER_CALLS.attempts` times in a run (8,
over about half a minute), not 4 x 6 x 3; the registration retry flow asks again later.
The create step calls the service once an attempt (the client may repeat a lost answer:
an unsigned create can never land); a 400 from the service is never repeated by anyone,
but for one: right after confirmation the public service may answer register 400 "not
found" for a launch it has not indexed yet, and the register step asks again (each ask
is the client's whole REGISTER_CALLS policy) until the profile's `register_index_seconds`
have passed; then the launch is `register_failed`, for the registration retry.

Every policy is bounded twice: by its attempts and by a deadline across them (`deadline`,
seconds from the first attempt; an attempt is not started, nor a wait begun, that would
end past it). A `Retry-After` longer than what is left ends the retries at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    retry_if_exception_type,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
)
from tenacity.stop import stop_base

from launchops.errors import BadRequestError, BlockhashExpired, LaunchOpsError

# Jitter from a generator of launchops' own, never the `random` module's: a program that
# seeds that one (a simulation's random.seed(42); Hypothesis, for every example) would
# otherwise make the callers that failed together wait alike, and each draw here would
# move the caller's sequence.
_JITTER = random.Random()


class wait_jittered_exponential(wait_exponential):
    """tenacity's `wait_random_exponential` ("full jitter"), drawn from `_JITTER`."""

    def __call__(self, retry_state: RetryCallState) -> float:
        return _JITTER.uniform(0, super().__call__(retry_state=retry_state))


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts of one call, with jittered exponential waits (and `Retry-After` honoured)."""

    attempts: int = 4
    initial_wait: float = 0.25
    max_wait: float = 8.0
    max_retry_after: float = 30.0
    deadline: float | None = None  # seconds across every attempt and wait
    written_for: float | None = None  # the deadline its waits are written for (see within)

    def wait(self, state: RetryCallState) -> float:
        """Half of the exponential step for sure, half at random: callers that failed
        together spread out, and the attempts always cover at least `window()[0]`."""
        error = state.outcome.exception() if state.outcome else None
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            return min(float(retry_after), self.max_retry_after)
        step = self.step(state.attempt_number)
        return step / 2 + _JITTER.uniform(0, step / 2)

    def step(self, attempt: int) -> float:
        return min(self.max_wait, self.initial_wait * 2 ** (attempt - 1))

    def window(self) -> tuple[float, float]:
        """The least and the most time the attempts wait in all (no `Retry-After`): an
        outage shorter than the least is ridden over."""
        total = sum(self.step(attempt) for attempt in range(1, self.attempts))
        return total / 2, total

    def within(self, deadline: float | None) -> RetryPolicy:
        """The same policy bounded by `deadline` seconds across its attempts; its waits
        shrink or grow with it when it was written for another deadline (`written_for`):
        a profile's one number sets how long a call may take and how patiently it asks."""
        if deadline is None or not self.written_for:
            return replace(self, deadline=deadline)
        scale = deadline / self.written_for
        return replace(
            self,
            deadline=deadline,
            initial_wait=self.initial_wait * scale,
            max_wait=self.max_wait * scale,
            max_retry_after=self.max_retry_after * scale,
            written_for=deadline,
        )

    def retrying(self) -> AsyncRetrying:
        """Repeat while the error is transient, within the attempts and the deadline; the
        error finally raised says it was retried."""
        stop: stop_base = stop_after_attempt(self.attempts)
        if self.deadline is not None:
            stop = stop | stop_before_delay(self.deadline)
        return AsyncRetrying(
            stop=stop,
            wait=self.wait,
            retry=retry_if_exception(is_transient),
            retry_error_callback=_mark_retried if self.attempts > 1 else None,
            reraise=True,
        )


def is_transient(error: BaseException) -> bool:
    """Repeating the same call may succeed (and nobody has repeated it yet)."""
    return bool(getattr(error, "transient", False)) and not getattr(error, "retried", False)


def _mark_retried(state: RetryCallState) -> Any:
    error = state.outcome.exception() if state.outcome else None
    assert error is not None
    if is_transient(error):
        error.retried = True  # type: ignore[attr-defined]
    raise error


# Each rides over an outage of the service or the node of about 7 s (its window: 7.75-15.5
# s and 7.1-14.2 s), as a restart or a load balancer's failover takes; no Prefect task
# retry stands behind them.
# Their waits are written for the profile's default deadlines (service_call_seconds 60,
# rpc_call_seconds 30), and scale with the deadline a profile sets.
SERVICE_CALLS = RetryPolicy(attempts=6, initial_wait=0.5, max_wait=8.0, written_for=60.0)
# Register comes once everything landed and is idempotent: worth asking longer (15.75-31.5 s).
REGISTER_CALLS = RetryPolicy(attempts=8, initial_wait=0.5, max_wait=8.0, written_for=60.0)
RPC_CALLS = RetryPolicy(attempts=8, initial_wait=0.2, max_wait=4.0, written_for=30.0)


class Outage:
    """Whether a remote (the RPC, the service) is gone for this run: once a call gave up
    and nothing usable came from the remote for `deadline` seconds (any call's answer
    counts, a refusal too), every later call fails at once with `gone()` instead of
    waiting out a deadline of its own: a batch whose RPC is gone ends within about one
    deadline, not one a launch. A call that gave up while others get answers fails alone
    (an unlucky call to a flaky node is not a node gone)."""

    def __init__(self, gone: Callable[[str], LaunchOpsError], deadline: float) -> None:
        self._make = gone
        self.deadline = deadline
        self.reason: str | None = None
        self.last_answer = time.monotonic()

    def answered(self) -> None:
        """The remote answered something usable (a result, or a refusal) just now."""
        self.last_answer = time.monotonic()

    def check(self) -> None:
        """Raise the gone error if the remote is gone."""
        if self.reason is not None:
            raise self._make(self.reason)

    def exhausted(self, error: LaunchOpsError, prefix: str = "") -> LaunchOpsError:
        """A call gave up on `error` (transient to its last attempt): the error to raise,
        the gone one when nothing usable came for the deadline (`prefix`: what the error's
        text begins with that the gone error says itself)."""
        silent = time.monotonic() - self.last_answer
        if self.reason is None and silent < self.deadline:
            return error
        if self.reason is None:
            last = str(error).removeprefix(prefix)
            self.reason = f"no usable answer for {silent:.0f} s (last: {last})"
        return self._make(self.reason)


def create_again(attempts: int) -> AsyncRetrying:
    """New creates while a blockhash expires with nothing landed: at most `attempts` (the
    profile's `create_attempts`), jittered."""
    return AsyncRetrying(
        retry=retry_if_exception_type(BlockhashExpired),
        stop=stop_after_attempt(attempts + 1),  # the last one records `failed`
        wait=wait_jittered_exponential(multiplier=0.2, max=5),
        reraise=True,
    )


@dataclass(frozen=True)
class IndexerWait:
    """Register asked again while the service answers 400 "not found" (not indexed yet)."""

    initial_wait: float = 1.0
    max_wait: float = 8.0

    def retrying(self, seconds: float) -> AsyncRetrying:
        """Jittered waits, no attempt started after `seconds`; the last 400 is raised."""
        return AsyncRetrying(
            retry=retry_if_exception(not_indexed_yet),
            stop=stop_before_delay(seconds),
            wait=wait_jittered_exponential(multiplier=self.initial_wait, max=self.max_wait),
            reraise=True,
        )


def not_indexed_yet(error: BaseException) -> bool:
    """A 400 saying the launch (its genesis account) is not found: not indexed yet."""
    return isinstance(error, BadRequestError) and "not found" in error.error.lower()


INDEXER_WAIT = IndexerWait()


@dataclass(frozen=True)
class TaskRetries:
    """What a Prefect step task repeats: only what `worth_a_task_retry` accepts."""

    retries: int = 2
    delays: tuple[float, ...] = (1.0, 5.0)


TASK_RETRIES = TaskRetries()


def worth_a_task_retry(error: BaseException | None) -> bool:
    """A transient failure that nothing beneath the step retried."""
    return error is not None and is_transient(error)


__all__ = [
    "INDEXER_WAIT",
    "REGISTER_CALLS",
    "RPC_CALLS",
    "SERVICE_CALLS",
    "TASK_RETRIES",
    "IndexerWait",
    "Outage",
    "RetryPolicy",
    "create_again",
    "is_transient",
    "not_indexed_yet",
    "worth_a_task_retry",
]
