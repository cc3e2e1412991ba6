"""The state machine of a launch: its states, its steps, and the one table that joins them.

    validated -> created -> signed -> submitting -> submitted -> confirmed -> registered
                    ^                      |                                   |
                    +---- expired <--------+                          register_failed
    (and needs_attention: for a person; failed: nothing landed, a person fixes what the
    error says and runs the same command again, which creates again from there; refused:
    the service's answer asked the creator to sign what the file does not, so nothing was
    signed, and a person looks before running it again, which creates again)

Every way back to `created` (a create again) first asks the chain, as `fate` does: an
attempt found on chain, or one that may still land, goes back to `submitting` instead
(or, under a configuration `--replace` changed, to `needs_attention`).

Each row says which step runs from a state, the states that step may leave the launch
in, and who drives it: any run at once, the runner after its create-again wait, only the
registration retry, a person, or nobody. Every set the rest of launchops asks about is
derived from the table; no state is spelled as text anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class LaunchState(StrEnum):
    """Where a journal entry stands (the module's diagram); the value is what the journal stores."""

    VALIDATED = "validated"  # the file is checked and recorded
    CREATED = "created"  # the service built the transactions (kept)
    SIGNED = "signed"  # signed bytes and signatures kept; nothing sent
    SUBMITTING = "submitting"  # sends may have happened; each one's fate is kept
    SUBMITTED = "submitted"  # every transaction landed
    CONFIRMED = "confirmed"  # every signature at the profile's commitment
    REGISTERED = "registered"  # done: launch page, ids
    EXPIRED = "expired"  # nothing landed and the blockhash is provably dead
    REGISTER_FAILED = "register_failed"  # register refused it (details kept)
    NEEDS_ATTENTION = "needs_attention"  # some landed, the rest cannot be repaired
    FAILED = "failed"  # nothing landed; the service or the node refused it
    REFUSED = "refused"  # the answer asks for what the file does not: nothing signed


class Step(StrEnum):
    """A step of a launch, in the order `STEP_ORDER` keeps; the value names it in events
    and progress lines."""

    VALIDATE = "validate"
    CREATE = "create"
    SIGN = "sign"
    SUBMIT = "submit"
    CONFIRM = "confirm"
    REGISTER = "register"


STEP_ORDER = tuple(Step)  # the order a launch goes through them


class Kind(StrEnum):
    """What a journal entry moves: a launch, SOL to or from an agent's wallet, a claim of
    creator rewards, or an agent's mint."""

    LAUNCH = "launch"
    FUND = "fund"
    WITHDRAW = "withdraw"
    CLAIM = "claim"  # creator rewards claimed to a wallet
    AGENT = "agent"  # an agent minted from an agent file


class Outcome(StrEnum):
    """How one create attempt ended, when it did not land whole."""

    EXPIRED = "expired"  # nothing landed; its blockhash is dead
    PARTIAL = "partial"  # some transactions landed, the rest could not
    FAILED = "failed"  # the first was refused, or failed on chain


class Driver(StrEnum):
    """Who moves a launch out of a state."""

    RUN = "any run"  # at once, in the run that finds it there
    CREATE_AGAIN = "the runner"  # after the create-again policy's wait (launchops.retries)
    REGISTRATION_RETRY = "the registration retry"  # nothing else re-registers it
    # A new command for the launch (launch, batch, resume) after a person fixed what it
    # failed on: never the run that left it there, and only when nothing of it landed.
    RERUN = "a run asked again"
    PERSON = "a person"
    NOBODY = "nobody"  # finished


@dataclass(frozen=True)
class Transition:
    """A row of the table: the step that runs from a state (None: none does), the states
    that step may leave the entry in, and who drives it."""

    step: Step | None
    leads_to: frozenset[LaunchState]
    driver: Driver


def _row(step: Step | None, driver: Driver, *leads_to: LaunchState) -> Transition:
    return Transition(step, frozenset(leads_to), driver)


S, D = LaunchState, Driver
# Submit runs from signed, and again from submitting (a resume): one row for both.
_SUBMIT = _row(
    Step.SUBMIT,
    D.RUN,
    S.SUBMITTING,
    S.SUBMITTED,
    S.EXPIRED,
    S.NEEDS_ATTENTION,
    S.FAILED,
    S.REFUSED,  # the chain's simulation of the first: it takes more than it may
)

LAUNCH_MACHINE: dict[LaunchState, Transition] = {
    # From validated with attempts behind it (--replace): one found on chain stops it.
    S.VALIDATED: _row(Step.CREATE, D.RUN, S.CREATED, S.FAILED, S.NEEDS_ATTENTION),
    S.CREATED: _row(Step.SIGN, D.RUN, S.SIGNED, S.FAILED, S.REFUSED),
    S.SIGNED: _SUBMIT,
    S.SUBMITTING: _SUBMIT,
    S.SUBMITTED: _row(Step.CONFIRM, D.RUN, S.CONFIRMED, S.SUBMITTING),  # rolled back: resend
    S.CONFIRMED: _row(Step.REGISTER, D.RUN, S.REGISTERED, S.REGISTER_FAILED),
    # Before a create again the runner asks the chain once more: found, it goes back.
    S.EXPIRED: _row(Step.CREATE, D.CREATE_AGAIN, S.CREATED, S.FAILED, S.SUBMITTING),
    S.REGISTER_FAILED: _row(Step.REGISTER, D.REGISTRATION_RETRY, S.REGISTERED, S.REGISTER_FAILED),
    S.REGISTERED: _row(None, D.NOBODY),
    S.NEEDS_ATTENTION: _row(None, D.PERSON),
    # Nothing landed: asked again, it creates again (up to the profile's attempts more),
    # unless the chain shows the last attempt after all: then it is watched again.
    S.FAILED: _row(Step.CREATE, D.RERUN, S.CREATED, S.FAILED, S.SUBMITTING),
    # Nothing signed: the refused answer is never signed; asked again, it creates again.
    S.REFUSED: _row(Step.CREATE, D.RERUN, S.CREATED, S.FAILED),
}
# A fund or withdraw is done once confirmed: it has nothing to register; a failed one is
# left to a person (its command reports it again).
TRANSFER_MACHINE = {
    **LAUNCH_MACHINE,
    S.CONFIRMED: _row(None, D.NOBODY),
    S.FAILED: _row(None, D.PERSON),
    S.REFUSED: _row(None, D.PERSON),
}
MACHINES = {
    Kind.LAUNCH: LAUNCH_MACHINE,
    Kind.FUND: TRANSFER_MACHINE,
    Kind.WITHDRAW: TRANSFER_MACHINE,
    Kind.CLAIM: {  # "nothing to claim" at a build is finished at once: confirmed, nothing claimed
        **TRANSFER_MACHINE,
        S.VALIDATED: _row(Step.CREATE, D.RUN, S.CREATED, S.FAILED, S.CONFIRMED),
        S.EXPIRED: _row(
            Step.CREATE, D.CREATE_AGAIN, S.CREATED, S.FAILED, S.SUBMITTING, S.CONFIRMED
        ),
    },
    Kind.AGENT: TRANSFER_MACHINE,
}

# ── what the rest of launchops asks, derived from the table ─────────────────


def terminal(kind: Kind = Kind.LAUNCH) -> frozenset[LaunchState]:
    """Where a run stops: nothing more happens without a person or the registration retry."""
    return frozenset(
        s for s, t in MACHINES[kind].items() if t.driver not in (D.RUN, D.CREATE_AGAIN)
    )


# A run (`launchops resume`) continues from these at once.
RESUMABLE = frozenset(s for s, t in LAUNCH_MACHINE.items() if t.driver is D.RUN)
# Waiting for a person: to decide (needs_attention), or to fix and run again (failed).
NEEDS_A_PERSON = frozenset(s for s, t in LAUNCH_MACHINE.items() if t.driver in (D.PERSON, D.RERUN))
# Landed but not registered: what the registration retry takes.
REGISTRABLE = frozenset(
    s for s, t in LAUNCH_MACHINE.items() if t.step in (Step.CONFIRM, Step.REGISTER)
)


def _before(step: Step, machine: dict[LaunchState, Transition]) -> frozenset[LaunchState]:
    """The states a run moves a launch through from `validated` before `step` first runs
    (those a person or a re-run moves it out of are where a run stops, not before)."""
    reached: set[LaunchState] = set()
    todo = [S.VALIDATED]
    while todo:
        state = todo.pop()
        if state not in reached and machine[state].driver is D.RUN:
            reached.add(state)
            if machine[state].step is not step:
                todo.extend(machine[state].leads_to)
    return frozenset(reached)


# Nothing was sent from these. A failed launch may have sent transactions the node
# refused: what `--replace` and a re-run ask of it is that nothing of it landed.
BEFORE_SENDING = _before(Step.SUBMIT, LAUNCH_MACHINE)


def transition(state: LaunchState, kind: Kind = Kind.LAUNCH) -> Transition:
    """The row of `kind`'s table for `state`."""
    return MACHINES[kind][state]


def done(state: LaunchState, kind: Kind = Kind.LAUNCH) -> bool:
    """Finished for good: registered (a launch), confirmed (a transfer)."""
    return transition(state, kind).driver is D.NOBODY


__all__ = [
    "BEFORE_SENDING",
    "LAUNCH_MACHINE",
    "MACHINES",
    "NEEDS_A_PERSON",
    "REGISTRABLE",
    "RESUMABLE",
    "STEP_ORDER",
    "TRANSFER_MACHINE",
    "Driver",
    "Kind",
    "LaunchState",
    "Outcome",
    "Step",
    "Transition",
    "done",
    "terminal",
    "transition",
]
