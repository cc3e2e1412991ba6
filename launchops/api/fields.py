"""Field types shared by every model: solders types inside, strings on the wire.

Each validator raises a `PydanticCustomError` whose message is the sentence a user reads
after the field's path, e.g. `launch.symbol: must be 1 to 10 characters (got 14)`.
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError
from solders.hash import Hash
from solders.pubkey import Pubkey

LAMPORTS_PER_SOL = 1_000_000_000
U64_MAX = 2**64 - 1
_BASE58_ALPHABET = frozenset("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")


class WireModel(BaseModel):
    """camelCase on the wire, snake_case in Python; unknown fields are kept as received."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        ser_json_inf_nan="null",
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON object to send: camelCase, unset optional fields left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    def to_json_echo(self) -> dict[str, Any]:
        """The JSON object as it was received (only the fields that were present)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class Network(StrEnum):
    """The cluster a request is for, as the service spells it (`solana-mainnet`,
    `solana-devnet`)."""

    MAINNET = "solana-mainnet"
    DEVNET = "solana-devnet"


def rule(code: str, message: str, **context: Any) -> PydanticCustomError:
    """A validation error whose text is the rule, as the user will read it."""
    return PydanticCustomError(code, message, context or None)


def _base58_key(value: object, kind: str, parse: Any) -> Any:
    if not isinstance(value, str):
        raise rule("base58", f"must be a base58 {kind} (a string), not {type(value).__name__}")
    bad = sorted(set(value) - _BASE58_ALPHABET)
    if bad:
        shown = "".join(bad[:5])
        raise rule("base58", f"must be a base58 {kind}; characters outside base58: {shown!r}")
    try:
        return parse(value)
    except ValueError:
        raise rule(
            "base58", f"must be a base58 {kind} of 32 bytes (got {len(value)} characters)"
        ) from None


def _to_pubkey(value: object) -> Pubkey:
    if isinstance(value, Pubkey):
        return value
    return _base58_key(value, "public key", Pubkey.from_string)


def _to_hash(value: object) -> Hash:
    if isinstance(value, Hash):
        return value
    return _base58_key(value, "blockhash", Hash.from_string)


_BASE58_SCHEMA = {"type": "string", "pattern": "^[1-9A-HJ-NP-Za-km-z]{32,44}$"}

PublicKey = Annotated[
    Pubkey,
    PlainValidator(_to_pubkey),
    PlainSerializer(str, return_type=str, when_used="json"),
    WithJsonSchema({**_BASE58_SCHEMA, "description": "base58 public key (32 bytes)"}),
]
Blockhash = Annotated[
    Hash,
    PlainValidator(_to_hash),
    PlainSerializer(str, return_type=str, when_used="json"),
    WithJsonSchema({**_BASE58_SCHEMA, "description": "base58 blockhash"}),
]


def _b64decode(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    if not isinstance(value, str):
        raise rule("base64", "must be a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise rule("base64", "must be valid base64") from None


Base64Bytes = Annotated[
    bytes,
    PlainValidator(_b64decode),
    PlainSerializer(lambda b: base64.b64encode(b).decode(), return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "contentEncoding": "base64"}),
]


def _to_utc(value: object) -> datetime:
    given = value
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise rule("timestamp", "must be an ISO 8601 time, e.g. 2026-03-01T15:00:00Z") from None
    if not isinstance(value, datetime):
        raise rule("timestamp", "must be an ISO 8601 time, e.g. 2026-03-01T15:00:00Z")
    # A time without a zone is read as UTC, the zone the service speaks.
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+01:00 is in year 0 in UTC
        shown = given if isinstance(given, str) else value.isoformat()
        raise rule(
            "timestamp", f"must be a time from year 1 to 9999 in UTC (got {shown[:40]!r})"
        ) from None


def iso_utc(value: datetime) -> str:
    """ISO 8601 in UTC with milliseconds and `Z`, as JavaScript's toISOString writes it."""
    utc = value.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


Timestamp = Annotated[
    datetime,
    PlainValidator(_to_utc),
    PlainSerializer(iso_utc, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]


def _check_length(low: int, high: int) -> Any:
    def check(value: object) -> str:
        if not isinstance(value, str):
            raise rule("type", f"must be text, not {type(value).__name__}")
        if not low <= len(value) <= high:
            bounds = f"at most {high}" if low == 0 else f"{low} to {high}"
            raise rule("length", f"must be {bounds} characters (got {len(value)})")
        return value

    return check


def Text(low: int, high: int) -> Any:
    """A string of `low`..`high` characters, with the rule in its error message."""
    return Annotated[
        str,
        PlainValidator(_check_length(low, high)),
        WithJsonSchema({"type": "string", "minLength": low, "maxLength": high}),
    ]


MAX_IMAGE_URL = 200
"""Characters of an image URL: the token's metadata URI, whose limit in Metaplex metadata
is 200 (and the metadata goes in the launch's first transaction)."""


def _check_http_url(value: object) -> str:
    if not isinstance(value, str):
        raise rule("url", f"must be an http(s) URL, not {type(value).__name__}")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or " " in value:
        raise rule("url", "must be an http(s) URL, e.g. https://gateway.irys.xyz/<id>")
    return value


def _check_image_url(value: object) -> str:
    url = _check_http_url(value)
    if len(url) > MAX_IMAGE_URL:
        raise rule("length", f"must be at most {MAX_IMAGE_URL} characters (got {len(url)})")
    return url


_URL_SCHEMA = {"type": "string", "format": "uri", "pattern": "^https?://"}
HttpUrl = Annotated[str, PlainValidator(_check_http_url), WithJsonSchema(_URL_SCHEMA)]
ImageUrl = Annotated[
    str,
    PlainValidator(_check_image_url),
    WithJsonSchema({**_URL_SCHEMA, "maxLength": MAX_IMAGE_URL}),
]


def clean_loc(loc: tuple[int | str, ...], data: Any = None) -> tuple[int | str, ...]:
    """The path of an error without the tags pydantic adds for a discriminated union.

    With the validated input at hand, `allocations.0.unlockedV2.supply` becomes
    `allocations.0.supply`: the user wrote `type: unlockedV2`, not a field of that name.
    """
    kept: list[int | str] = []
    node, tag_dropped = data, False
    for part in loc:
        is_tag = isinstance(node, dict) and isinstance(part, str) and node.get("type") == part
        if is_tag and not tag_dropped:
            tag_dropped = True
            continue
        tag_dropped = False
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            node = None
        kept.append(part)
    return tuple(kept)


def field_path(loc: tuple[int | str, ...], data: Any = None) -> str:
    """`('launch', 'allocations', 0, 'supply')` -> `launch.allocations[0].supply`."""
    text = ""
    for part in clean_loc(loc, data):
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def error_message(error: Any) -> str:
    """The sentence for one pydantic error dict, in the user's words."""
    ctx = error.get("ctx") or {}
    kind = error["type"]
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind == "union_tag_invalid":
        return f"unknown type {ctx.get('tag')!r}; expected one of {ctx.get('expected_tags')}"
    if kind == "union_tag_not_found":
        return f"needs a '{ctx.get('discriminator', 'type')}' field"
    if kind.startswith("literal_error") or kind == "enum":
        return f"must be {ctx.get('expected', 'one of the allowed values')}"
    return error["msg"]


def problems_of(exc: Any, data: Any = None) -> list[tuple[str, str]]:
    """(field, message) pairs of a pydantic ValidationError, in the wire's names.

    Pass the validated input as `data` for paths free of union tags.
    """
    return [
        (field_path(tuple(error["loc"]), data), error_message(error))
        for error in exc.errors(include_url=False)
    ]
