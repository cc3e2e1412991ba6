"""Reading the files people give launchops (launch files, funding lists, profiles) without
trusting them: at most the size limit plus one byte is read from any file (`/dev/zero`
included: its size is not asked), a FIFO or a socket is refused without waiting on it, and
YAML anchors and aliases are refused before anything
is built, so a nine-line alias bomb is one error instead of gigabytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from launchops.api.errors import LaunchFileError, Problem

MAX_FILE_BYTES = 1_000_000
# libyaml's parser when PyYAML has it (several times faster: batches parse many files).
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _refuse(path: Path, line: int | None, message: str) -> LaunchFileError:
    return LaunchFileError([Problem(str(path), line, "(file)", message)])


def read_text(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The file's UTF-8 text; a LaunchFileError when it cannot be read, is larger than
    `limit` bytes or is not text. Reads `limit + 1` bytes at most."""
    try:
        # Not blocking: a FIFO with no writer would wait forever at open (and at read).
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:  # missing, unreadable, a symlink that loops ...
        raise _refuse(path, None, f"cannot be read: {exc.strerror or exc}") from None
    kind = os.fstat(descriptor).st_mode  # before fdopen, which fails on a folder
    if stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind) or stat.S_ISDIR(kind):
        os.close(descriptor)
        what = "a folder" if stat.S_ISDIR(kind) else "a FIFO or socket"
        raise _refuse(path, None, f"is {what}, not a file")
    with os.fdopen(descriptor, "rb") as file:
        try:
            raw = file.read(limit + 1)
        except OSError as exc:
            raise _refuse(path, None, f"cannot be read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise _refuse(path, None, f"is larger than {limit} bytes, the most a file may have")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse(path, None, "is not UTF-8 text") from None


def parse_yaml(path: Path, text: str) -> tuple[yaml.Node | None, Any]:
    """One parse: the node tree (for line numbers) and the data built from it.

    Anchors (`&name`) and aliases (`*name`) are refused with their line: no file
    launchops reads needs them, and expanding nested ones costs memory without bound.
    """
    if "&" in text or "*" in text:  # only then can there be one: skip the scan otherwise
        _refuse_anchors(path, text)
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        return node, None if node is None else loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise _refuse(path, mark.line + 1 if mark else None, f"is not valid YAML: {what}") from None
    except (ValueError, RecursionError) as exc:  # e.g. a date out of range
        raise _refuse(path, None, f"is not valid YAML: {exc}") from None
    finally:
        loader.dispose()


def _refuse_anchors(path: Path, text: str) -> None:
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise _refuse(
                    path,
                    event.start_mark.line + 1,
                    "uses YAML anchors and aliases (&name, *name), which launch files, "
                    "funding lists and profiles do not take: write the values out",
                )
    except yaml.YAMLError:
        return  # the parse proper reports where the YAML is broken


def load_yaml(path: Path, limit: int = MAX_FILE_BYTES) -> Any:
    """The data of a YAML file, read and parsed under the rules above."""
    return parse_yaml(path, read_text(path, limit))[1]
