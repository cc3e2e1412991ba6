"""The persisted state of every launch and every step: the source of truth for resume.

`launchops.journal.records` (the typed records) is light; `Journal` (SQLAlchemy) loads on
first use, so reading a launch file does not import a database engine."""

from typing import TYPE_CHECKING, Any

from launchops.journal.records import (
    Attempt,
    Created,
    LaunchRecord,
    Registered,
    Send,
    TransferOrder,
)

if TYPE_CHECKING:
    from launchops.journal.store import Journal


def __getattr__(name: str) -> Any:
    if name == "Journal":
        from launchops.journal.store import Journal

        return Journal
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Attempt", "Created", "Journal", "LaunchRecord", "Registered", "Send", "TransferOrder"]
