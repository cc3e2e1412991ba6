"""`launchops` with a kill point: the process SIGKILLs itself at one moment of one step.

    python -m tests.support.crash "create: answered, not journaled" launch FILE --json

Each moment wraps one method of the journal, the service client or the RPC, so the kill
falls exactly after a side effect and before the journal write that records it, or just
after a journal write (a step boundary). The kill is the process's own SIGKILL: no
handler, no `finally`, no flush, as when the machine loses power or the OOM killer fires.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Moment:
    step: str
    when: str
    owner: str  # "journal", "client" or "rpc"
    method: str
    after: bool  # kill after the wrapped call returns (else before it runs)
    match: Callable[[tuple[Any, ...], dict[str, Any]], bool] = lambda args, kwargs: True

    @property
    def name(self) -> str:
        return f"{self.step}: {self.when}"


def _state_is(state: str) -> Callable[[tuple[Any, ...], dict[str, Any]], bool]:
    # set_state(key, state, ...) names it second; record_sends(..., state=...) by keyword
    return lambda args, kwargs: kwargs.get("state", args[1] if len(args) > 1 else None) == state


class _NotFirst:
    """Matches a send of any transaction other than the first one sent."""

    def __init__(self) -> None:
        self.first: bytes | None = None

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        raw = args[0]
        if self.first is None:
            self.first = raw
        return raw != self.first


MOMENTS = [
    Moment("validate", "journaled", "journal", "begin", after=True),
    Moment("create", "answered, not journaled", "client", "create_launch", after=True),
    Moment("create", "journaled", "journal", "record_created", after=True),
    Moment("sign", "signed, not journaled", "journal", "record_signed", after=False),
    Moment("sign", "journaled", "journal", "record_signed", after=True),
    Moment(
        "submit",
        "'submitting' journaled, nothing sent",
        "journal",
        "record_sends",
        after=True,
        match=_state_is("submitting"),
    ),
    Moment("submit", "first transaction sent, not journaled", "rpc", "send", after=True),
    Moment(
        "submit",
        "last transaction sent, not journaled",
        "rpc",
        "send",
        after=True,
        match=_NotFirst(),
    ),
    Moment(
        "submit",
        "journaled",
        "journal",
        "record_sends",
        after=True,
        match=_state_is("submitted"),
    ),
    Moment(
        "confirm",
        "confirmed on chain, not journaled",
        "journal",
        "set_state",
        after=False,
        match=_state_is("confirmed"),
    ),
    Moment(
        "confirm", "journaled", "journal", "set_state", after=True, match=_state_is("confirmed")
    ),
    Moment("register", "answered, not journaled", "client", "register_launch", after=True),
    Moment("register", "journaled", "journal", "record_registered", after=True),
]
# An agent's mint (`launchops agents mint FILE`): the same boundaries, its own steps
# (build for create; one transaction, so no "last transaction" moment; no register).
_AGENT_STEPS = {"validate": "validate", "create": "build", "sign": "sign", "submit": "submit"}
_AGENT_STEPS |= {"confirm": "confirm"}
AGENT_MOMENTS = [
    replace(
        m,
        step=f"agent {_AGENT_STEPS[m.step]}",
        when=m.when.replace("first transaction sent", "sent"),
        method="mint_agent" if m.method == "create_launch" else m.method,
    )
    for m in MOMENTS
    if m.step in _AGENT_STEPS and not m.when.startswith("last transaction")
]
BY_NAME = {moment.name: moment for moment in (*MOMENTS, *AGENT_MOMENTS)}


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def arm(moment: Moment) -> None:
    from launchops.api.client import AsyncServiceClient
    from launchops.chain.rpc import ChainRpc
    from launchops.journal.store import Journal

    owner = {"journal": Journal, "client": AsyncServiceClient, "rpc": ChainRpc}[moment.owner]
    original = getattr(owner, moment.method)

    @functools.wraps(original)
    async def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        hit = moment.match(args, kwargs)
        if hit and not moment.after:
            _die()
        result = await original(self, *args, **kwargs)
        if hit and moment.after:
            _die()
        return result

    setattr(owner, moment.method, wrapped)


def main() -> None:
    name, *args = sys.argv[1:]
    arm(BY_NAME[name])
    sys.argv = ["launchops", *args]
    from launchops.cli import main as launchops

    launchops()


if __name__ == "__main__":
    main()
