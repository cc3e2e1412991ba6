"""Field types shared by every model: solders types inside, strings on the wire.

Each validator raises a `PydanticCustomError` whose message is the sentence a user reads
after the field's path, e.g. `launch.symbol: must be 1 to 10 characters (got 14)`.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from datetime import UTC, datetime
from decimal import Context, Decimal, InvalidOperation
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


MAX_DECIMALS = 9
"""Decimals of a mint the service takes: 1 to 9."""
MAX_TOKENS = 10**18
"""Whole tokens in any one amount or supply: 10^18 fits a u64 of base units at 1 decimal."""
MAX_QUOTE = 10**10
"""Quote tokens (SOL, USDC) in any one amount: 10^10 SOL is 10^19 lamports, within a u64."""
YEAR_SECONDS = 31_557_600  # 365.25 days
MAX_SECONDS = 100 * YEAR_SECONDS
"""Any duration or time offset: at most 100 years."""


def figure(value: int | float | Decimal) -> str:
    """A number as a message shows it: `10^18` for a large power of ten, a huge number
    shortened to 6 digits (`1.23457E+40`, never 400 digits), any other as written."""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) and abs(value) < 1e21 else str(value)
    exact = Decimal(value)
    if not exact.is_finite():
        return str(exact)
    if isinstance(value, int) and value >= 10**6:
        digits = exact.as_tuple().digits
        if digits[0] == 1 and not any(digits[1:]):
            return f"10^{len(digits) - 1}"
    if abs(exact) < 10**21:
        return str(exact)
    return str(Context(prec=6).create_decimal(exact).normalize())


def whole_tokens(base_units: int, decimals: int) -> str:
    """Base units as whole tokens, exactly, for a message (never a float's overflow)."""
    return f"{Decimal(base_units).scaleb(-decimals).normalize():f}"


def _whole_number(value: object) -> int:
    """An int as pydantic's lax mode reads one: an int, a float without a fraction, or a
    string of digits (what `${VAR}` in a launch file expands to)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise rule("integer", f"must be a whole number, not {type(value).__name__}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise rule("finite", f"must be a finite number (got {value})")
        if not value.is_integer():
            raise rule("integer", f"must be a whole number (got {value})")
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if not re.fullmatch(r"[+-]?[0-9]{1,30}", text):
            raise rule("integer", f"must be a whole number (got {value[:40]!r})")
        return int(text)
    return value


def _check_integer(low: int, high: int, high_text: str) -> Any:
    def check(value: object) -> int:
        number = _whole_number(value)
        if not low <= number <= high:
            raise rule("range", f"must be {low} to {high_text} (got {figure(number)})")
        return number

    return check


def Integer(
    low: int, high: int, high_text: str | None = None, description: str | None = None
) -> Any:
    """An integer from `low` to `high`, with the range in its error message, e.g.
    `must be 1 to 9 (got 40)`; `high_text` words the top with its unit."""
    schema: dict[str, Any] = {"type": "integer", "minimum": low, "maximum": high}
    if description:
        schema["description"] = description
    return Annotated[
        int,
        PlainValidator(_check_integer(low, high, high_text or figure(high))),
        WithJsonSchema(schema),
    ]


def _check_number(high: int, zero: bool) -> Any:
    def check(value: object) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise rule("number", f"must be a number, not {type(value).__name__}")
        if isinstance(value, float) and not math.isfinite(value):
            raise rule("finite", f"must be a finite number (got {value})")
        if zero and value < 0:
            raise rule("non_negative", f"must be 0 or more (got {figure(value)})")
        if not zero and not value > 0:
            raise rule("positive", f"must be greater than 0 (got {figure(value)})")
        if value > high:
            raise rule("at_most", f"must be at most {figure(high)} (got {figure(value)})")
        return value

    return check


def Number(high: int, *, zero: bool = False) -> Any:
    """A finite JSON number greater than 0 (or at least 0 with `zero`) and at most `high`."""
    low = {"minimum": 0} if zero else {"exclusiveMinimum": 0}
    return Annotated[
        int | float,
        PlainValidator(_check_number(high, zero)),
        WithJsonSchema({"type": "number", **low, "maximum": high}),
    ]


TokenAmount = Number(MAX_TOKENS)
"""Whole tokens (not base units), more than 0 and at most 10^18."""
TokenAmountOrZero = Number(MAX_TOKENS, zero=True)
QuoteAmount = Number(MAX_QUOTE)
"""Whole quote tokens (SOL, USDC), more than 0 and at most 10^10."""
QuoteAmountOrZero = Number(MAX_QUOTE, zero=True)
Bps = Integer(0, 10_000, "10000 basis points", "basis points, 0..10000")
Decimals = Integer(1, MAX_DECIMALS)
Supply = Integer(1, MAX_TOKENS)
_CENTURY = f"{MAX_SECONDS} seconds, 100 years"
Seconds = Integer(0, MAX_SECONDS, _CENTURY, "seconds, at most 100 years")
TimeOffset = Integer(-MAX_SECONDS, MAX_SECONDS, _CENTURY, "seconds, at most 100 years either way")


def _sol_amount(value: object) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise rule("amount", "must be an amount of SOL, e.g. 0.25")
    shown = figure(value) if isinstance(value, int) else str(value)[:40]
    try:
        # An int exactly (str() of one past 4300 digits raises); a float as it reads.
        amount = Decimal(value) if isinstance(value, int) else Decimal(str(value).strip())
    except InvalidOperation:
        raise rule("amount", f"must be an amount of SOL, e.g. 0.25 (got {value!r:.40})") from None
    if not amount.is_finite() or amount <= 0:
        raise rule("amount", f"must be a positive amount of SOL (got {shown})")
    # Exact tests only: arithmetic in the default context would overflow (1e999999999)
    # or round (1e-999999999 to 0, 1.000...0001 to 1) before the rules could see it.
    if amount.adjusted() >= 11 or amount.scaleb(9) > U64_MAX:
        raise rule("amount", f"is larger than any SOL balance (got {shown})")
    _, digits, exponent = amount.as_tuple()
    zeros = len(digits) - len("".join(map(str, digits)).rstrip("0"))
    if isinstance(exponent, int) and exponent + zeros < -9:
        raise rule("amount", f"has more than 9 decimals, finer than a lamport (got {shown})")
    return amount


def _sol_json(amount: Decimal) -> int | float:
    # The wire carries a JSON number; up to 15 significant digits a float keeps it exact.
    return int(amount) if amount == amount.to_integral_value() else float(amount)


SolAmount = Annotated[
    Decimal,
    PlainValidator(_sol_amount),
    PlainSerializer(_sol_json, when_used="json"),
    WithJsonSchema({"type": "number", "exclusiveMinimum": 0}),
]


def lamports(amount: Decimal) -> int:
    """Exact lamports of a SOL amount (validated to at most 9 decimals)."""
    return int(amount * LAMPORTS_PER_SOL)


def base_units(whole_tokens: int | float, decimals: int) -> int:
    """Exact base units of an amount of whole tokens (as the service's JSON numbers read)."""
    return int(Decimal(repr(whole_tokens)) * (Decimal(10) ** decimals))


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
