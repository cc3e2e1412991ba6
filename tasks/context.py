"""Hand the launch context to tasks by name: task parameters stay plain strings (nothing
secret reaches Prefect's API), while the clients, journal and keypair stay in-process."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable

from launchops.pipeline.context import LaunchContext

_CONTEXTS: dict[str, LaunchContext] = {}
_LISTENERS: list[Callable[[str, str, str], None]] = []


def register(ctx: LaunchContext) -> str:
    name = uuid.uuid4().hex
    _CONTEXTS[name] = ctx
    return name


def forget(name: str) -> None:
    _CONTEXTS.pop(name, None)


def context(name: str) -> LaunchContext:
    return _CONTEXTS[name]


def listen(listener: Callable[[str, str, str], None]) -> None:
    """Progress of every launch in this process, e.g. for a live display."""
    _LISTENERS.append(listener)


def progress(key: str, step: str, message: str) -> None:
    from prefect.exceptions import MissingContextError
    from prefect.logging import get_run_logger

    with contextlib.suppress(MissingContextError):
        get_run_logger().info("%s %s: %s", key or "-", step, message)
    for listener in list(_LISTENERS):
        listener(key, step, message)


_ROW_LISTENERS: list[Callable[[object], None]] = []


def listen_rows(listener: Callable[[object], None]) -> None:
    """Each batch row as it changes, e.g. for a progress bar."""
    _ROW_LISTENERS.append(listener)


def row_listeners(row: object) -> None:
    for listener in list(_ROW_LISTENERS):
        listener(row)
