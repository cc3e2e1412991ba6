"""One launch file as read: its data with `${VAR}` expanded, the line of every field, and
the problems found so far, each naming file, line and field."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from launchops.api.fields import field_path
from launchops.config.files import parse_yaml, read_text
from launchops.errors import LaunchFileError, Problem

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class FileReader:
    """One file's text, its parsed data, and the line of every field in it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = str(path)
        self.lines: dict[tuple[Any, ...], int] = {}
        self.problems: list[Problem] = []

    def problem(self, field: str, message: str, loc: tuple[Any, ...] = ()) -> None:
        self.problems.append(Problem(self.name, self.line_of(loc), field, message))

    def line_of(self, loc: tuple[Any, ...]) -> int | None:
        while loc:
            if loc in self.lines:
                return self.lines[loc]
            loc = loc[:-1]
        return self.lines.get((), None)

    def read(self) -> dict[str, Any] | None:
        data = self.read_any()
        if data is None and self.problems:
            return None
        if not isinstance(data, dict):
            kind = "empty" if data is None else f"a {type(data).__name__}"
            self.problem("(file)", f"must be a mapping of launch fields, not {kind}")
            return None
        if not all(isinstance(k, str) for k in data):
            self.problem("(file)", "every key must be text")
            return None
        return self._expand(data, ())

    def read_any(self) -> Any:
        """The file's data whatever its shape (`${VAR}` not expanded), every line indexed;
        None with a problem when it cannot be read or parsed."""
        try:
            node, data = parse_yaml(self.path, read_text(self.path))
        except LaunchFileError as exc:
            self.problems.extend(exc.file_problems)
            return None
        if node is not None:
            self._index(node, ())
        return data

    def _index(self, node: yaml.Node, loc: tuple[Any, ...]) -> None:
        self.lines.setdefault(loc, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = (*loc, key_node.value)
                self.lines[key] = key_node.start_mark.line + 1
                self._index(value_node, key)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._index(item, (*loc, index))

    def _expand(self, value: Any, loc: tuple[Any, ...]) -> Any:
        if isinstance(value, dict):
            return {k: self._expand(v, (*loc, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self._expand(v, (*loc, i)) for i, v in enumerate(value)]
        if isinstance(value, str) and "${" in value:

            def substitute(match: re.Match[str]) -> str:
                name, default = match.group(1), match.group(2)
                found = os.environ.get(name, default)
                if found is None:
                    self.problem(field_path(loc), f"uses ${{{name}}}, which is not set", loc)
                    return ""
                return found

            return _ENV.sub(substitute, value)
        if isinstance(value, datetime) and value.tzinfo is None and loc != ("schedule",):
            # YAML times without a zone are read as UTC; but a schedule says its zone, or
            # is refused (launchops.config.schedule), not launched at a guessed hour.
            return value.replace(tzinfo=UTC)
        return value
