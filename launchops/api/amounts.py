"""Numbers of the contract: token and quote amounts, counts, durations and SOL, each with
its bounds in the message a user reads, so no input can overflow anything downstream."""

from __future__ import annotations

import math
import re
from decimal import Context, Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

from launchops.api.fields import LAMPORTS_PER_SOL, U64_MAX, rule

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
