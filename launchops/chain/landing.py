"""Where a signature stands on chain, at which commitment."""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = {"processed": 0, "confirmed": 1, "finalized": 2}


@dataclass(frozen=True)
class Landing:
    """A signature seen on chain: its slot, the commitment `level` it reached, and its
    error on chain (None when it succeeded)."""

    slot: int
    level: str  # processed, confirmed or finalized
    err: str | None = None  # the transaction's error on chain, if it failed there

    def reached(self, commitment: str) -> bool:
        return LEVELS[self.level] >= LEVELS[commitment]
