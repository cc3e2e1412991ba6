"""A stop asked of this process by a signal (SIGINT, SIGTERM), and how the runs heed it.

A command that runs launches (`launchops batch`, `launch`, `resume`, `registrations
retry`, ...) installs `catching()` for its run: SIGINT and SIGTERM then mean the same,
with a terminal or without (a job a non-interactive shell starts in the background
inherits SIGINT ignored: the handler is installed whatever the process inherited).

While a launch context is open (`heeding`, which `open_context` enters), a signal is a
request that the runs read (`asked`, and `LaunchContext.stopped()`):

- no launch starts any more: a batch's rows not yet started end `unfinished`;
- a launch in flight starts no further step; the step it is in has `GRACE_SECONDS` to
  end, and is then cancelled at its next await point (at once after a second signal:
  `within_grace`). Every step journals before its side effects, so the launch stands
  where `resume` or the same command again continues it.

Before any launch context was opened (a sandbox or a Prefect server still starting), a
signal raises `Interrupted` at once: nothing was journaled yet. No Prefect import here; a
Prefect flow run puts a SIGTERM handler of its own in place for its run, and `heeding`
puts the command's back (the flow runs in the command's own process).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType

GRACE_SECONDS = 5.0
SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass(frozen=True)
class Stop:
    """One signal the process received, and when (`time.monotonic()`)."""

    signum: int
    at: float

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """What a shell reports for a process this signal ended: 130, 143."""
        return 128 + self.signum

    @property
    def reason(self) -> str:
        return f"stopped by {self.name}"


class Interrupted(BaseException):
    """A signal before any launch context was open: the command unwinds at once (a
    BaseException, as KeyboardInterrupt is, so that nothing takes it for a failure)."""

    def __init__(self, stop: Stop) -> None:
        super().__init__(stop.reason)
        self.stop = stop


class StepCut(Exception):
    """A step cancelled by a stop (`within_grace`); the journal holds where it stood."""


@dataclass
class _State:
    stops: list[Stop] = field(default_factory=list)
    wakers: list[Callable[[], None]] = field(default_factory=list)
    on_stop: Callable[[Stop], None] | None = None
    installed: bool = False
    heeding: int = 0
    begun: bool = False
    not_started: dict[str, None] = field(default_factory=dict)  # an ordered set
    left: dict[str, str] = field(default_factory=dict)  # launch -> its state at the end


_state = _State()


def asked() -> Stop | None:
    """The first stop asked of this process, if any."""
    return _state.stops[0] if _state.stops else None


def stops() -> list[Stop]:
    """Every stop asked, in order."""
    return list(_state.stops)


def ask(signum: int = signal.SIGTERM) -> Stop:
    """Ask the runs of this process to stop, as the signal `signum` does (what the
    handler calls; callable from any thread)."""
    stop = Stop(signum, time.monotonic())
    _state.stops.append(stop)
    for wake in list(_state.wakers):
        wake()
    return stop


def reset() -> None:
    """Forget every stop and what it left (a new command, or a test)."""
    global _state
    _state = _State(installed=_state.installed, on_stop=_state.on_stop)


def deadline(grace: float = GRACE_SECONDS) -> float | None:
    """When a step in flight is cut (`time.monotonic()`): `grace` after the first stop,
    the second stop's time after a second; None while none was asked."""
    if len(_state.stops) > 1:
        return _state.stops[1].at
    return _state.stops[0].at + grace if _state.stops else None


def note_not_started(what: str) -> None:
    """A batch's row the stop kept from starting (its launch's key, or its file)."""
    _state.not_started[what] = None


def note_left(key: str, state: str) -> None:
    """A launch in flight when the stop came, and the state it ended in."""
    _state.left[key] = state


def account() -> tuple[list[str], dict[str, str]]:
    """What the stop did: the rows it kept from starting, and the launches in flight with
    the state each ended in."""
    return list(_state.not_started), dict(_state.left)


def _handle(signum: int, frame: FrameType | None) -> None:
    stop = ask(signum)
    if _state.on_stop is not None:
        _state.on_stop(stop)
    if not _state.begun:
        raise Interrupted(stop)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def catching(on_stop: Callable[[Stop], None] | None = None) -> Iterator[None]:
    """SIGINT and SIGTERM asked as stops for the block (`on_stop` hears each, in the main
    thread, as the signal lands), whatever handler the process had (an ignored SIGINT
    among them); the handlers it had are put back after. Nothing outside the main thread,
    where no handler can be installed."""
    if not _main_thread():
        yield
        return
    reset()
    previous = {signum: signal.signal(signum, _handle) for signum in SIGNALS}
    _state.installed, _state.on_stop = True, on_stop
    try:
        yield
    finally:
        _state.installed, _state.on_stop = False, None
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def heeding() -> Iterator[None]:
    """A launch context open for the block: from now on a signal is a request the runs
    heed, not an interruption. The command's handlers are put back in place where
    another took one over (a Prefect flow run's, for SIGTERM)."""
    _state.heeding += 1
    _state.begun = True
    if _state.installed and _main_thread():
        for signum in SIGNALS:
            if signal.getsignal(signum) is not _handle:
                signal.signal(signum, _handle)
    try:
        yield
    finally:
        _state.heeding -= 1


@contextlib.asynccontextmanager
async def within_grace(grace: float = GRACE_SECONDS) -> AsyncIterator[None]:
    """The block, cancelled at its next await point once a stop's grace has passed
    (`deadline`): `StepCut` then, in its place. It runs undisturbed while no stop is asked."""
    loop = asyncio.get_running_loop()
    timer = asyncio.timeout(None)
    entered = [False]

    def cut() -> None:
        when = deadline(grace)
        if entered[0] and when is not None:
            timer.reschedule(loop.time() + (when - time.monotonic()))

    def wake() -> None:  # from the signal handler: the loop may be waiting in select
        with contextlib.suppress(RuntimeError):  # its loop closed
            loop.call_soon_threadsafe(cut)

    _state.wakers.append(wake)
    try:
        async with timer:
            entered[0] = True
            cut()
            try:
                yield
            finally:
                entered[0] = False
    except TimeoutError:
        if not timer.expired():
            raise
        stop = asked()
        raise StepCut(stop.reason if stop else "stopped") from None
    finally:
        _state.wakers.remove(wake)


__all__ = [
    "GRACE_SECONDS",
    "Interrupted",
    "StepCut",
    "Stop",
    "account",
    "ask",
    "asked",
    "catching",
    "deadline",
    "heeding",
    "note_left",
    "note_not_started",
    "reset",
    "stops",
    "within_grace",
]
