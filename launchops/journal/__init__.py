"""The persisted state of every launch and every step: the source of truth for resume."""

from launchops.journal.store import Attempt, Journal, LaunchRecord

__all__ = ["Attempt", "Journal", "LaunchRecord"]
