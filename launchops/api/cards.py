"""Where agent cards are kept with their ETag, so a later call can send If-None-Match."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class CachedCard:
    """An agent card as last fetched, with the ETag it came with."""

    etag: str
    card: dict[str, Any]


class CardCache(Protocol):
    """Where agent cards are kept with their ETag, for conditional requests."""

    def get(self, key: str) -> CachedCard | None: ...
    def put(self, key: str, entry: CachedCard) -> None: ...


class MemoryCardCache:
    """A `CardCache` in this process's memory: its cards are gone when the process ends."""

    def __init__(self) -> None:
        self._entries: dict[str, CachedCard] = {}

    def get(self, key: str) -> CachedCard | None:
        return self._entries.get(key)

    def put(self, key: str, entry: CachedCard) -> None:
        self._entries[key] = entry


class FileCardCache:
    """Cards and their ETags kept in a JSON file, so a later process can send If-None-Match."""

    def __init__(self, path: Any) -> None:
        self.path = Path(path)

    def _load(self) -> dict[str, Any]:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}

    def get(self, key: str) -> CachedCard | None:
        entry = self._load().get(key)
        return CachedCard(entry["etag"], entry["card"]) if isinstance(entry, dict) else None

    def put(self, key: str, entry: CachedCard) -> None:
        entries = self._load()
        entries[key] = {"etag": entry.etag, "card": entry.card}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(entries))
        temporary.replace(self.path)
