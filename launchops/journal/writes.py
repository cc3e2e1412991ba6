"""The journal's writes of a launch's steps: each one transaction, what a step did and
the state it leaves the launch in together (mixed into `Journal`, whose `_write` holds
the launch's lease and runs them in its threads)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from launchops.journal.records import Created, Registered, Send, Spent, StateChange
from launchops.journal.rows import Held, encoded, sends_json
from launchops.states import LaunchState, Outcome, Step
from launchops.states import LaunchState as S


class Writes:
    """What each step keeps: an attempt created, signed, its sends, its outcome; a state
    set; a registration; a step's answer."""

    _write: Callable[..., Any]

    async def record_created(self, key: str, number: int, created: Created) -> None:
        def write(held: Held) -> StateChange | None:
            held.add_attempt(number, created.to_json())
            mint = str(created.mint) if created.mint else None
            change = held.set_launch(
                state=str(S.CREATED),
                attempt=number,
                mint=mint,
                genesis=str(created.genesis) if created.genesis else None,
                last_error=None,
                error_details=None,
            )
            made = f"attempt {number}: {len(created.transactions)} transactions"
            held.event(Step.CREATE, made + (f", mint {mint}" if mint else ""))
            return change

        await self._write(key, write)

    async def record_signed(
        self,
        key: str,
        number: int,
        signed: Sequence[bytes],
        sends: Sequence[Send],
        created: Created | None = None,
    ) -> None:
        """The signed bytes and their sends; `created`: the attempt's create as read
        since (its blockhash seen valid on chain), kept in the same write."""
        changes: dict[str, Any] = {"signed": encoded(signed), "sends": sends_json(sends)}
        if created is not None:
            changes["created"] = created.to_json()

        def write(held: Held) -> StateChange | None:
            held.set_attempt(number, **changes)
            change = held.set_launch(state=str(S.SIGNED))
            held.event(Step.SIGN, f"{len(sends)} signed")
            return change

        await self._write(key, write)

    async def record_sends(
        self,
        key: str,
        number: int,
        sends: Sequence[Send],
        *,
        state: LaunchState | None = None,
        signed: Sequence[bytes] | None = None,
        note: str | None = None,
        reopen: bool = False,
        error: str | None = None,
        spent: Spent | None = None,
    ) -> None:
        """What became of each transaction (sent, landed); optionally re-signed ones;
        `reopen`: the attempt's outcome is cleared (it was found landing after all);
        `error`: why the run stops here (with `state`; else the last error is cleared);
        `spent`: the attempt's fees and tip."""
        changes: dict[str, Any] = {"sends": sends_json(sends)}
        if spent is not None:
            changes["spent"] = spent.to_json()
        if reopen:
            changes["outcome"] = None
        if signed is not None:
            changes["signed"] = encoded(signed)

        def write(held: Held) -> StateChange | None:
            held.set_attempt(number, **changes)
            change = None
            if state is not None:
                change = held.set_launch(state=str(state), last_error=error, error_details=None)
            if note:
                held.event(Step.SUBMIT, note)
            return change

        await self._write(key, write)

    async def record_outcome(
        self,
        key: str,
        number: int,
        outcome: Outcome,
        *,
        state: LaunchState,
        error: str | None = None,
        details: list[Any] | None = None,
        sends: Sequence[Send] | None = None,
    ) -> None:
        """How attempt `number` ended, and the state it leaves the launch in; `sends`: what
        became of each transaction, kept in the same write."""
        changes: dict[str, Any] = {"outcome": str(outcome)}
        if sends is not None:
            changes["sends"] = sends_json(sends)

        def write(held: Held) -> StateChange | None:
            held.set_attempt(number, **changes)
            change = held.set_launch(state=str(state), last_error=error, error_details=details)
            held.event(Step.SUBMIT, f"attempt {number}: {outcome}")
            return change

        await self._write(key, write)

    async def set_state(
        self,
        key: str,
        state: LaunchState,
        *,
        step: Step,
        message: str,
        error: str | None = None,
        details: list[Any] | None = None,
    ) -> None:
        def write(held: Held) -> StateChange | None:
            change = held.set_launch(state=str(state), last_error=error, error_details=details)
            held.event(step, message)
            return change

        await self._write(key, write)

    async def record_registered(self, key: str, registered: Registered) -> None:
        def write(held: Held) -> StateChange | None:
            change = held.set_launch(
                state=str(S.REGISTERED),
                result=registered.to_json(),
                last_error=None,
                error_details=None,
            )
            held.event(Step.REGISTER, f"registered: {registered.link}")
            return change

        await self._write(key, write)

    async def set_result(
        self,
        key: str,
        result: dict[str, Any],
        *,
        step: Step,
        message: str,
        state: LaunchState | None = None,
    ) -> None:
        """Keep what a step answered (a claim's lamports, say), with the state it leads
        to, if any, in one write."""
        values: dict[str, Any] = {"result": result}
        if state is not None:
            values.update(state=str(state), last_error=None, error_details=None)

        def write(held: Held) -> StateChange | None:
            change = held.set_launch(**values)
            held.event(step, message)
            return change

        await self._write(key, write)
