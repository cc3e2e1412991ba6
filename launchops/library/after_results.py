"""What the runs after a launch answer: an agent minted, a creator-reward claim, a
launch's status. Frozen and typed, like `launchops.library.results`; JSON keys camelCase."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from launchops.library.results import json_of
from launchops.states import Kind, LaunchState, done

if TYPE_CHECKING:
    from launchops.api.after import LaunchDetail
    from launchops.journal.records import LaunchRecord


def _journaled(record: LaunchRecord) -> dict[str, Any]:
    """What every journaled run's result takes from its record."""
    signatures = tuple(record.signatures)
    return {
        "key": record.key,
        "state": record.state,
        "network": record.network,
        "signatures": signatures,
        "attempts": record.attempt,
        "error": record.last_error,
    }


@dataclass(frozen=True)
class AgentResult:
    """An agent file's mint as a run left it: `asset` is the agent's address (what a
    launch file's `agent: {mint}` takes) once `finished`."""

    key: str
    state: LaunchState
    network: str
    asset: str | None
    signatures: tuple[str, ...] = ()
    attempts: int = 0
    error: str | None = None
    from_journal: bool = False  # minted before this run: reported, nothing was done

    @property
    def finished(self) -> bool:
        return done(self.state, Kind.AGENT)

    @classmethod
    def of(cls, record: LaunchRecord, *, from_journal: bool = False) -> AgentResult:
        return cls(**_journaled(record), asset=record.mint, from_journal=from_journal)

    def to_json(self) -> dict[str, Any]:
        return json_of(self, finished=self.finished)


@dataclass(frozen=True)
class ClaimResult:
    """One wallet's claim as a run left it: nothing to claim, or what was claimed, read
    from the chain (the wallet's lamports before and after; net of fees when the wallet
    pays them)."""

    key: str
    wallet: str
    network: str
    state: LaunchState
    nothing_to_claim: bool = False
    lamports_before: int | None = None
    lamports_after: int | None = None
    claimed: int | None = None
    signatures: tuple[str, ...] = ()
    attempts: int = 0
    error: str | None = None

    @property
    def finished(self) -> bool:
        return done(self.state, Kind.CLAIM)

    @classmethod
    def of(cls, record: LaunchRecord) -> ClaimResult:
        result = record.result or {}
        return cls(
            **_journaled(record),
            wallet=str(record.config.get("wallet")),
            nothing_to_claim=bool(result.get("nothingToClaim")),
            lamports_before=result.get("lamportsBefore"),
            lamports_after=result.get("lamportsAfter"),
            claimed=result.get("claimed"),
        )

    def to_json(self) -> dict[str, Any]:
        return json_of(self, finished=self.finished)


@dataclass(frozen=True)
class LaunchStatusResult:
    """Where a launch stands at the service: upcoming, live, graduated or ended."""

    genesis_address: str
    status: str
    mechanic: str
    name: str
    symbol: str
    mint: str | None
    launch_page: str
    key: str | None = None  # the journal's key, when the launch is in it
    graduated_at: str | None = None
    start_time: str | None = None
    end_time: str | None = None

    @classmethod
    def of(cls, detail: LaunchDetail, key: str | None = None) -> LaunchStatusResult:
        launch, token = detail.launch, detail.base_token

        def when(value: Any) -> str | None:
            return value.isoformat() if value is not None else None

        return cls(
            genesis_address=str(launch.genesis_address),
            status=str(launch.status),
            mechanic=str(launch.mechanic),
            name=token.name,
            symbol=token.symbol,
            mint=str(token.address),
            launch_page=launch.launch_page,
            key=key,
            graduated_at=when(launch.graduated_at),
            start_time=when(launch.start_time),
            end_time=when(launch.end_time),
        )

    def to_json(self) -> dict[str, Any]:
        return json_of(self)


@dataclass(frozen=True)
class StatusChange:
    """A registered launch whose status changed to graduated or ended (emitted once)."""

    key: str
    genesis_address: str
    network: str
    status: str
    previous: str | None

    def to_json(self) -> dict[str, Any]:
        return json_of(self)


@dataclass(frozen=True)
class WatchResult:
    """One look at the watched launches: the changes announced, each launch's status,
    and the keys still watched (neither graduated nor ended)."""

    changes: tuple[StatusChange, ...]
    statuses: dict[str, str]
    watching: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "changes": [c.to_json() for c in self.changes],
            "statuses": dict(self.statuses),
            "watching": list(self.watching),
        }


__all__ = [
    "AgentResult",
    "ClaimResult",
    "LaunchStatusResult",
    "StatusChange",
    "WatchResult",
]
