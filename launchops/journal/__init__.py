"""The persisted state of every launch and every step: the source of truth for resume."""

from launchops.journal.records import (
    Attempt,
    Created,
    LaunchRecord,
    Registered,
    Send,
    TransferOrder,
)
from launchops.journal.store import Journal

__all__ = ["Attempt", "Created", "Journal", "LaunchRecord", "Registered", "Send", "TransferOrder"]
