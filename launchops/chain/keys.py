"""Where the creator's keypair comes from. The secret never leaves the `Keypair` object:
it is not logged, journaled, returned or put into an error message.

Sources: `file:PATH` (a Solana CLI key file, a JSON array of 64 bytes), `env:VAR` (the
same JSON array, or base58 of the 64 bytes), `sandbox` (a throwaway key generated once
and kept in the profile's folder), and `prefect-secret:NAME` (resolved by the Prefect
layer, which hands it in as `resolver`).
"""

from __future__ import annotations

import json
import os
import stat
import warnings
from collections.abc import Callable
from pathlib import Path

import base58
from solders.keypair import Keypair

from launchops.errors import KeypairError


class KeypairPermissionWarning(UserWarning):
    """A keypair file others can read."""


def load_keypair(
    source: str, *, state_dir: Path, resolver: Callable[[str], str] | None = None
) -> Keypair:
    """The keypair `source` names (`file:PATH`, `env:VAR`, `prefect-secret:NAME` through
    `resolver`, `sandbox` kept in `state_dir`, or a bare path). `KeypairError` when it
    cannot be loaded; a file others can read warns (`KeypairPermissionWarning`)."""
    kind, _, value = source.partition(":")
    if kind == "sandbox" and not value:
        return _sandbox_keypair(state_dir / "sandbox-keypair.json")
    if kind == "file":
        return _from_file(Path(value).expanduser())
    if kind == "env":
        text = os.environ.get(value)
        if not text:
            raise KeypairError(f"environment variable {value} (the keypair) is not set")
        return _parse(text.strip(), f"environment variable {value}")
    if kind == "prefect-secret":
        if resolver is None:
            raise KeypairError(
                f"keypair source {source!r} needs Prefect: run with Prefect, not --no-prefect"
            )
        return _parse(resolver(value).strip(), f"Prefect Secret block {value!r}")
    if not value:  # a bare path
        return _from_file(Path(source).expanduser())
    raise KeypairError(
        f"unknown keypair source {kind!r}: use file:PATH, env:VAR, prefect-secret:NAME or sandbox"
    )


def _from_file(path: Path) -> Keypair:
    try:
        text = path.read_text()
        mode = path.stat().st_mode
    except FileNotFoundError as exc:  # say how to make one
        raise KeypairError(
            f"cannot read keypair file {path}: {exc.strerror}; make one with "
            f"solana-keygen new -o {path} (or point the profile's keypair at yours)"
        ) from None
    except OSError as exc:
        raise KeypairError(f"cannot read keypair file {path}: {exc.strerror}") from None
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        warnings.warn(
            f"keypair file {path} is readable by other users; run: chmod 600 {path}",
            KeypairPermissionWarning,
            stacklevel=3,
        )
    return _parse(text.strip(), f"keypair file {path}")


def _parse(text: str, where: str) -> Keypair:
    try:
        raw = bytes(json.loads(text)) if text.startswith("[") else base58.b58decode(text)
        if len(raw) != 64:
            raise ValueError
        return Keypair.from_bytes(raw)
    except (ValueError, TypeError):
        # Never echo the text: it may be most of a secret key.
        raise KeypairError(
            f"{where} is not a keypair: expected a JSON array of 64 bytes or base58 of them"
        ) from None


def _sandbox_keypair(path: Path) -> Keypair:
    if path.exists():
        return _from_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    keypair = Keypair()
    # Written whole to a private file, then linked into place: workers starting together
    # all end up with the one key, and none reads a half-written file.
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(list(bytes(keypair)), file)
    try:
        os.link(temporary, path)
    except FileExistsError:
        return _from_file(path)  # another worker made it first
    finally:
        temporary.unlink(missing_ok=True)
    return keypair
