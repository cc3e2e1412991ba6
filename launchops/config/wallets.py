"""A claim-wallets file (`configs/claim-wallets.yaml`): the wallets whose creator rewards
a claim run claims, under `wallets:` (or the list alone), each an address or
`{wallet, payer}`. Every problem names file, line, field and rule, before anything is
claimed or scheduled."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from launchops.api.fields import PublicKey
from launchops.config.reader import FileReader
from launchops.errors import LaunchFileError

_KEY: TypeAdapter[Any] = TypeAdapter(PublicKey)
_FIELDS = ("wallet", "payer")


@dataclass(frozen=True)
class ClaimWallet:
    """One wallet to claim for, and who pays (None: the profile's wallet)."""

    wallet: str
    payer: str | None = None


def read_wallets(path: Path) -> list[ClaimWallet]:
    """The wallets of `path`; a LaunchFileError naming each problem's line and field."""
    reader = FileReader(path)
    data = reader.read_any()
    rows = data.get("wallets") if isinstance(data, dict) else data
    loc: tuple[Any, ...] = ("wallets",) if isinstance(data, dict) else ()
    if not reader.problems and (not isinstance(rows, list) or not rows):
        reader.problem("wallets", "must be a list of wallet addresses, or {wallet, payer}", loc)
    if reader.problems:
        raise LaunchFileError(reader.problems)
    wallets = [_wallet(reader, row, (*loc, index)) for index, row in enumerate(rows)]
    if reader.problems:
        raise LaunchFileError(reader.problems)
    return [w for w in wallets if w is not None]


def _wallet(reader: FileReader, row: Any, loc: tuple[Any, ...]) -> ClaimWallet | None:
    name = f"wallets[{loc[-1]}]"
    if not isinstance(row, dict):
        wallet = _address(reader, name, row, loc)
        return ClaimWallet(wallet) if wallet else None
    for field in row:
        if field not in _FIELDS:
            reader.problem(f"{name}.{field}", "is not a known field (wallet, payer)", (*loc, field))
    if row.get("wallet") is None:
        reader.problem(f"{name}.wallet", "is required: the wallet whose rewards are claimed", loc)
        return None
    wallet = _address(reader, f"{name}.wallet", row["wallet"], (*loc, "wallet"))
    given = row.get("payer")
    payer = None if given is None else _address(reader, f"{name}.payer", given, (*loc, "payer"))
    if wallet is None or (given is not None and payer is None):
        return None
    return ClaimWallet(wallet, payer)


def _address(reader: FileReader, field: str, value: Any, loc: tuple[Any, ...]) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        why = f"must be a base58 public key in quotes: YAML reads {value} as a number"
        reader.problem(field, why, loc)
        return None
    try:
        return str(_KEY.validate_python(value))
    except ValidationError as exc:
        reader.problem(field, exc.errors()[0]["msg"], loc)
        return None


__all__ = ["ClaimWallet", "read_wallets"]
