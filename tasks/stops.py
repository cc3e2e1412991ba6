"""How a step task's run ends when its step stopped the launch short of done (for a
person, or the registration retry): a failed state of a name of its own, never Prefect's
own "Failed" (that one is an exception's)."""

from __future__ import annotations

from prefect.states import State

from launchops.states import NEEDS_A_PERSON, LaunchState

# Where a step may stop a launch short of done (for a person, or the registration retry),
# and the name of its task run's state then (never Prefect's own "Failed": that one is an
# exception's).
STOPS = {
    LaunchState.FAILED: "Launch failed",
    LaunchState.REFUSED: "Refused",
    LaunchState.NEEDS_ATTENTION: "Needs attention",
    LaunchState.REGISTER_FAILED: "Register failed",
}
assert set(STOPS) >= NEEDS_A_PERSON
STOPPED_NAMES = frozenset(STOPS.values())


def stopped(state: State[object]) -> bool:
    """A step task's run that ended because its launch stopped (not an exception)."""
    return state.is_failed() and state.name in STOPPED_NAMES
