"""What a run of launchops answers: frozen, typed results (the library's, the CLI's with
`--json`, the Prefect flows' return values). JSON keys are camelCase, as the service's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from launchops.states import NEEDS_A_PERSON, RESUMABLE, LaunchState, done

if TYPE_CHECKING:
    from launchops.config.profiles import Profile
    from launchops.journal.records import LaunchRecord


def camel(name: str) -> str:
    """`launch_page` -> `launchPage`, as the service spells its JSON."""
    first, *rest = name.split("_")
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


def json_of(result: Any, **derived: Any) -> dict[str, Any]:
    """A frozen result as `--json` prints it: `key` and `state` first, then what it
    derives (`finished`, ...), then every other field; camelCase keys, states as text,
    tuples as lists, mappings as dicts."""

    def plain(value: Any) -> Any:
        if isinstance(value, Enum):
            return str(value)
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        return dict(value) if isinstance(value, Mapping) else value

    values = {camel(f.name): plain(getattr(result, f.name)) for f in fields(result)}
    first = {k: values.pop(k) for k in ("key", "state") if k in values}
    return {**first, **{camel(k): v for k, v in derived.items()}, **values}


@dataclass(frozen=True)
class LaunchResult:
    """One launch as a run left it.

    `state` is where it stands (`registered` when it is done); `finished` says it is done
    for good, `needs_a_person` that nothing more happens without one, `resumable` that a
    re-run continues it. `error` says why it stopped, in one line."""

    key: str
    state: LaunchState
    network: str
    launch_page: str | None = None
    launch_id: str | None = None
    token_id: str | None = None
    mint: str | None = None
    genesis_account: str | None = None
    attempts: int = 0
    signatures: tuple[str, ...] = ()
    error: str | None = None
    error_details: tuple[Any, ...] = ()
    explorer: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    lamports_spent: int = 0  # fees and tips its attempts took from the creator
    spent: tuple[Mapping[str, Any], ...] = ()  # per attempt: mode, fees, tip offered, paid
    sniped_by: tuple[str, ...] = ()  # buys of others between the create and the first buy
    from_journal: bool = False  # finished before this run: reported, nothing was done

    @property
    def finished(self) -> bool:
        return done(self.state)

    @property
    def needs_a_person(self) -> bool:
        return self.state in NEEDS_A_PERSON

    @property
    def resumable(self) -> bool:
        return self.state in RESUMABLE

    @classmethod
    def of(cls, profile: Profile, record: LaunchRecord) -> LaunchResult:
        """The result a journal record stands for, with explorer links of the profile."""
        registered = record.registered

        def link(kind: Any, value: str | None) -> str | None:
            return profile.explorer_link(kind, value) if value else None

        signatures = tuple(record.signatures)
        explorer = {
            "mint": link("address", record.mint),
            "genesisAccount": link("address", record.genesis),
            "transactions": [link("tx", s) for s in signatures] if profile.explorer else [],
        }
        return cls(
            key=record.key,
            state=record.state,
            network=record.network,
            launch_page=registered.link if registered else None,
            launch_id=registered.launch_id if registered else None,
            token_id=registered.token_id if registered else None,
            mint=record.mint,
            genesis_account=record.genesis,
            attempts=record.attempt,
            signatures=signatures,
            error=record.last_error,
            error_details=tuple(record.error_details or ()),
            explorer=MappingProxyType(explorer),
            lamports_spent=record.lamports_spent,
            spent=tuple(
                MappingProxyType({"attempt": a.number, **a.spent.to_json()})
                for a in record.attempts
                if a.spent
            ),
            sniped_by=record.sniped_by,
        )

    def to_json(self) -> dict[str, Any]:
        """The result as `--json` prints it."""
        found = json_of(self, finished=self.finished, resumable=self.resumable)
        found["needsAPerson"] = self.needs_a_person
        found["errorDetails"] = found["errorDetails"] or None
        return found


@dataclass(frozen=True)
class BatchItem:
    """One file, launch or transfer of a batch, as its report shows it."""

    file: str
    key: str | None
    state: str  # a launch state, or invalid / duplicate / elsewhere / scheduled
    launch_page: str | None = None
    mint: str | None = None
    error: str | None = None
    worker: str | None = None
    scheduled_for: str | None = None  # `scheduled`: its time (UTC) or cron expression
    from_journal: bool = False  # finished before this run: reported, nothing was done

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> BatchItem:
        return cls(
            file=str(row.get("file") or ""),
            key=row.get("key"),
            state=str(row.get("state")),
            launch_page=row.get("launchPage", row.get("launch_page")),
            mint=row.get("mint"),
            error=row.get("error"),
            worker=row.get("worker"),
            scheduled_for=row.get("scheduledFor"),
            from_journal=bool(row.get("fromJournal")),
        )


@dataclass(frozen=True)
class BatchResult:
    """A batch (or a registration retry, a funding run) as a run left it: every item,
    counts by state, whether all finished (`ok`: registered, confirmed, left to another
    worker, or to its own schedule's deployment), and where its JSON and CSV reports were
    written."""

    items: tuple[BatchItem, ...]
    counts: Mapping[str, int]
    ok: bool
    reports: Mapping[str, Path]
    parts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """The flow runs of other workers that took a share (Prefect pools): name -> state."""
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), repr=False)

    @classmethod
    def from_json(cls, result: Mapping[str, Any]) -> BatchResult:
        """From the JSON a batch answers (`launchops.pipeline.batch.batch_result`)."""
        return cls(
            items=tuple(BatchItem.from_json(row) for row in result.get("launches", [])),
            counts=MappingProxyType(dict(result.get("counts", {}))),
            ok=bool(result.get("ok")),
            reports=MappingProxyType({k: Path(v) for k, v in result.get("reports", {}).items()}),
            parts=MappingProxyType(dict(result.get("parts") or {})),
            raw=MappingProxyType(dict(result)),
        )

    @property
    def stopped(self) -> str | None:
        """Why the run stopped starting launches (its RPC or service gone), if it did."""
        return self.raw.get("stopped")

    def to_json(self) -> dict[str, Any]:
        """The result as `--json` prints it (and the JSON report holds)."""
        return {**self.raw, "parts": dict(self.parts)}


__all__ = ["BatchItem", "BatchResult", "LaunchResult", "camel", "json_of"]
