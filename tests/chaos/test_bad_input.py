"""Bad launch files, generated: wrong types, missing and extra fields, huge and unicode
strings, bad base58, negative and float amounts, past dates, YAML that is not a mapping,
binary junk. Every one ends in a LaunchFileError naming file and field, never another
exception, and validation makes no network call. A few hundred cases in CI;
`LAUNCHOPS_FUZZ_EXAMPLES=10000 pytest tests/chaos/test_bad_input.py` by hand."""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solders.keypair import Keypair

from launchops.api.errors import LaunchFileError
from launchops.config.launchfile import load_launch_file
from tests.support.pipeline import launch_document

EXAMPLES = int(os.environ.get("LAUNCHOPS_FUZZ_EXAMPLES", "300"))
WALLET = Keypair().pubkey()
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.text(min_size=300, max_size=3000),
    st.sampled_from(
        [
            "0OIl" * 11,
            "1" * 44,
            "So1111",
            "2020-01-01T00:00:00Z",
            "9999-12-31",
            "-5",
            "1e400",
            "${NOPE}",
        ]
    ),
    st.datetimes(timezones=st.just(UTC)),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = [
    "id",
    "name",
    "symbol",
    "image",
    "description",
    "externalLinks",
    "network",
    "quoteMint",
    "wallet",
    "finalize",
    "launchpool",
    "presale",
    "type",
    "decimals",
    "supply",
    "allocations",
    "schedule",
]


def mutated(document: dict, path: list, value) -> dict:
    """The document with the field at `path` set to `value`, or removed (value is ...)."""
    node = document
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return document
    if value is ...:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return document


paths = st.sampled_from(
    [[f] for f in FIELDS]
    + [
        ["launchpool", f]
        for f in (
            "tokenAllocation",
            "depositStartTime",
            "raiseGoal",
            "raydiumLiquidityBps",
            "fundsRecipient",
            "lockedAllocations",
            "extra",
        )
    ]
    + [["presale", f] for f in ("quoteCap", "depositEndTime", "claimStartTime")]
)
documents = st.builds(
    lambda form, changes: _apply(launch_document(form), changes),
    st.sampled_from(["launchpool", "presale", "raw"]),
    st.lists(st.tuples(paths, st.one_of(st.just(...), values)), min_size=1, max_size=4),
)


def _apply(document: dict, changes: list) -> dict:
    for path, value in changes:
        document = mutated(document, path, value)
    return document


def outcome(tmp_path: Path, content: bytes) -> str:
    """'valid', or 'clear error' when every problem names this file, a field and a rule.
    Any other exception escapes and fails the test."""
    path = tmp_path / "fuzzed.yaml"
    path.write_bytes(content)
    try:
        load_launch_file(path, wallet=WALLET, now=datetime.now(UTC))
    except LaunchFileError as exc:
        named = all(p.file == str(path) and p.field and p.message for p in exc.file_problems)
        return "clear error" if exc.file_problems and named else "unclear error"
    return "valid"


def no_network(*args, **kwargs):
    raise AssertionError("validation opened a network connection")


@SETTINGS
@given(document=documents)
def test_mutated_launch_files_end_in_a_clear_error(tmp_path_factory, monkeypatch_module, document):
    try:
        text = yaml.safe_dump(document, allow_unicode=True).encode()
    except (yaml.YAMLError, RecursionError):
        return
    assert outcome(tmp_path_factory.mktemp("fuzz"), text) in ("valid", "clear error")


@SETTINGS
@given(
    content=st.one_of(
        st.binary(max_size=2000),
        st.text(max_size=500).map(str.encode),
        values.map(lambda v: yaml.safe_dump(v).encode()),
    )
)
def test_junk_ends_in_a_clear_error(tmp_path_factory, monkeypatch_module, content):
    assert outcome(tmp_path_factory.mktemp("junk"), content) in ("valid", "clear error")


import pytest  # noqa: E402


@pytest.fixture(scope="module")
def monkeypatch_module():
    """No socket may connect while launch files are validated."""
    patcher = pytest.MonkeyPatch()
    patcher.setattr(socket.socket, "connect", no_network)
    patcher.setattr(socket, "create_connection", no_network)
    yield patcher
    patcher.undo()
