"""Launch files: YAML in, a validated `LaunchConfig` and its stable key out.

Three forms: a `launchpool:` or `presale:` recipe (`recipes.py`), or `type:` with a raw
`allocations:` list for full control. `${VAR}` (or `${VAR:-default}`) expands from the
environment. Every problem names the file, the line, the field and the rule; loading
makes no network call.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
import yaml
from pydantic import Field, field_validator, model_validator
from solders.pubkey import Pubkey

from launchops.api.allocations import (
    Allocation,
    LaunchpoolAllocation,
    LockedAllocation,
    PresaleAllocation,
    TimeAbsolute,
)
from launchops.api.errors import LaunchFileError, Problem
from launchops.api.fields import (
    Decimals,
    HttpUrl,
    ImageUrl,
    Network,
    PublicKey,
    Supply,
    Text,
    WireModel,
    base_units,
    clean_loc,
    error_message,
    field_path,
    whole_tokens,
)
from launchops.api.models import USDC_MINTS, WRAPPED_SOL_MINT, LaunchConfig
from launchops.config.files import parse_yaml, read_text
from launchops.config.recipes import (
    RECIPE_DECIMALS,
    RECIPE_SUPPLY,
    LaunchpoolRecipe,
    PresaleRecipe,
    StrictModel,
)

LAUNCH_FILE_SUFFIXES = (".yaml", ".yml")
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_CRON_FIELD = re.compile(r"^[0-9A-Za-z*/,?#LW-]+$")


class Links(StrictModel):
    website: HttpUrl | None = None
    twitter: str | None = None
    telegram: str | None = None


class LaunchFile(StrictModel):
    """What an ops team writes. `launchops schema` prints its JSON Schema."""

    id: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")] | None = Field(
        None, description="the launch's stable key; else a hash of its configuration and network"
    )
    name: Text(1, 32)
    symbol: Text(1, 10)
    image: ImageUrl
    description: Text(0, 250) | None = None
    external_links: Links | None = None
    network: Network | None = Field(None, description="default: the profile's network")
    quote_mint: str = Field("SOL", description="SOL, USDC or a mint address")
    wallet: PublicKey | None = Field(None, description="the creator; must be the profile's key")
    finalize: bool = True
    launchpool: LaunchpoolRecipe | None = None
    presale: PresaleRecipe | None = None
    type: Literal["launchpool", "presale"] | None = Field(None, description="with allocations")
    decimals: Decimals | None = Field(None, description="with allocations, 1 to 9; default 6")
    supply: Supply | None = Field(
        None, description="whole tokens, with allocations, at most 10^18; default 10^9"
    )
    allocations: list[Allocation] | None = None
    schedule: str | None = Field(None, description="a time (ISO 8601) or a cron expression")

    @field_validator("schedule")
    @classmethod
    def _schedule_form(cls, value: str | None) -> str | None:
        if value is None:
            return value
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
            return value
        except ValueError:
            pass
        fields = value.split()
        if len(fields) not in (5, 6) or not all(_CRON_FIELD.match(f) for f in fields):
            raise _rule(
                "schedule", "must be an ISO 8601 time or a cron expression like '0 * * * *'"
            )
        return value

    @model_validator(mode="after")
    def _one_form(self) -> LaunchFile:
        forms = [
            f for f in ("launchpool", "presale", "allocations") if getattr(self, f) is not None
        ]
        if len(forms) != 1:
            raise _rule("form", "give exactly one of launchpool:, presale: or allocations:")
        if self.allocations is not None and self.type is None:
            raise _rule("form", "allocations: needs type: launchpool or type: presale")
        if self.allocations is None and (self.type or self.decimals or self.supply):
            raise _rule("form", "type, decimals and supply go with allocations:; recipes fix them")
        return self

    def compile(self, wallet: Pubkey, network: Network) -> LaunchConfig:
        """The spec's launch configuration of this file."""
        if self.launchpool is not None:
            kind, allocations = "launchpool", self.launchpool.compile(wallet)
        elif self.presale is not None:
            kind, allocations = "presale", self.presale.compile(wallet)
        else:
            kind, allocations = self.type, list(self.allocations or [])
        return LaunchConfig(
            name=self.name,
            symbol=self.symbol,
            image=self.image,
            description=self.description,
            decimals=self.decimals if self.decimals is not None else RECIPE_DECIMALS,
            supply=self.supply if self.supply is not None else RECIPE_SUPPLY,
            network=network,
            quote_mint=_quote_mint(self.quote_mint, network),
            type=kind,
            finalize=self.finalize,
            allocations=allocations,
            external_links=self.external_links.model_dump() if self.external_links else None,
            public_key=wallet,
        )


def _rule(code: str, message: str) -> Any:
    from launchops.api.fields import rule

    return rule(code, message)


def _quote_mint(value: str, network: Network) -> Pubkey:
    if value.upper() == "SOL":
        return WRAPPED_SOL_MINT
    if value.upper() == "USDC":
        return USDC_MINTS[network]
    return Pubkey.from_string(value)


@dataclass(frozen=True)
class LaunchPlan:
    """A validated launch: its key, configuration, the hash of it, and where it came from."""

    key: str
    config: LaunchConfig
    config_hash: str
    source: str
    schedule: str | None = None

    @property
    def wire(self) -> dict[str, Any]:
        return self.config.to_wire()


def config_hash(config: LaunchConfig) -> str:
    canonical = json.dumps(config.to_wire(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def launch_key(config: LaunchConfig, given: str | None) -> str:
    return given or f"h-{config_hash(config)[:16]}"


# ── loading ─────────────────────────────────────────────────────────────────


class _Reader:
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
        try:
            node, data = parse_yaml(self.path, read_text(self.path))
        except LaunchFileError as exc:
            self.problems.extend(exc.file_problems)
            return None
        if node is not None:
            self._index(node, ())
        if not isinstance(data, dict):
            kind = "empty" if data is None else f"a {type(data).__name__}"
            self.problem("(file)", f"must be a mapping of launch fields, not {kind}")
            return None
        if not all(isinstance(k, str) for k in data):
            self.problem("(file)", "every key must be text")
            return None
        return self._expand(data, ())

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
        if isinstance(value, datetime) and value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # YAML times without a zone are read as UTC
        return value


def load_launch_file(
    path: Path,
    *,
    wallet: Pubkey | None = None,
    network: Network | None = None,
    pinned_network: bool = False,
    now: datetime | None = None,
) -> LaunchPlan:
    """Validate one launch file; raises `LaunchFileError` listing every problem found.

    `wallet` is the profile's key (the creator); `network` the profile's, enforced when
    `pinned_network`; `now` turns on the "not in the past" rule (None: a resumed launch).
    """
    reader = _Reader(path)
    data = reader.read()
    if data is None:
        raise LaunchFileError(reader.problems)
    try:
        parsed = LaunchFile.model_validate(data)
    except pydantic.ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc = clean_loc(tuple(error["loc"]), data)
            reader.problem(field_path(loc), error_message(error), loc)
        raise LaunchFileError(reader.problems) from None
    _unknown_fields(parsed, (), reader)
    if parsed.wallet is not None and wallet is not None and parsed.wallet != wallet:
        reader.problem(
            "wallet",
            f"is {parsed.wallet}, but the profile's key is {wallet}: they must match",
            ("wallet",),
        )
    if (
        parsed.network is not None
        and pinned_network
        and network is not None
        and parsed.network != network
    ):
        reader.problem(
            "network", f"is {parsed.network}, but the profile sends to {network}", ("network",)
        )
    creator = wallet or parsed.wallet
    if creator is None:
        reader.problem("wallet", "is required when no profile key is known (give wallet:)", ())
    if reader.problems:
        raise LaunchFileError(reader.problems)
    assert creator is not None
    chosen = parsed.network or network or Network.MAINNET
    try:
        config = parsed.compile(creator, chosen)
    except (pydantic.ValidationError, ValueError) as exc:
        errors = exc.errors(include_url=False) if isinstance(exc, pydantic.ValidationError) else []
        for error in errors or [{"loc": (), "msg": str(exc), "type": "value_error"}]:
            form = (
                "allocations" if parsed.allocations is not None else (parsed.type or "launchpool")
            )
            loc = (form, *clean_loc(tuple(error["loc"]), None)[1:])
            reader.problem(field_path(loc), error_message(error), loc)
        raise LaunchFileError(reader.problems) from None
    _check_rules(config, parsed, reader, now)
    if reader.problems:
        raise LaunchFileError(reader.problems)
    return LaunchPlan(
        key=launch_key(config, parsed.id),
        config=config,
        config_hash=config_hash(config),
        source=str(path),
        schedule=parsed.schedule,
    )


def launch_files(target: Path) -> list[Path]:
    """A file, or every launch file (*.yaml, *.yml but profiles.yaml) below a folder, sorted."""
    if target.is_dir():
        found = (p for p in target.rglob("*") if p.suffix in LAUNCH_FILE_SUFFIXES and p.is_file())
        return sorted(p for p in found if p.stem != "profiles")
    return [target]


def _unknown_fields(model: Any, loc: tuple[Any, ...], reader: _Reader) -> None:
    """Raw allocations use the contract's models, which keep unknown fields: flag them."""
    if isinstance(model, WireModel):
        for name in model.model_extra or {}:
            reader.problem(field_path((*loc, name)), "is not a known field", (*loc, name))
        for name, field in type(model).model_fields.items():
            _unknown_fields(getattr(model, name), (*loc, field.alias or name), reader)
    elif isinstance(model, list):
        for index, item in enumerate(model):
            _unknown_fields(item, (*loc, index), reader)


def _check_rules(
    config: LaunchConfig, parsed: LaunchFile, reader: _Reader, now: datetime | None
) -> None:
    """Common sense beyond the models: whole supply, times in order and ahead."""
    form = (
        "allocations"
        if parsed.allocations is not None
        else ("launchpool" if parsed.launchpool else "presale")
    )
    allocated = sum(base_units(b.supply, config.decimals) for b in config.buckets())
    total = config.supply * 10**config.decimals
    if config.finalize and allocated != total:
        got = whole_tokens(allocated, config.decimals)
        message = f"a finalized launch must allocate its whole supply: {got} of {config.supply}"
        reader.problem(form, f"{message} tokens allocated", (form,))
    for index, allocation in enumerate(config.allocations):
        where = (form, index) if form == "allocations" else (form,)
        settings: Any = None
        if isinstance(allocation, LaunchpoolAllocation):
            settings = allocation.launchpool_v2
        elif isinstance(allocation, PresaleAllocation):
            settings = allocation.presale_v2
        if settings is not None:
            start = _time(settings.deposit_start_condition)
            end = _time(settings.deposit_end_condition)
            claim = _time(settings.claim_start_condition)
            if start and end and end <= start:
                reader.problem(
                    field_path(where), "the deposit window must end after it starts", where
                )
            if end and claim and claim < end:
                reader.problem(
                    field_path(where), "claims must not start before deposits end", where
                )
            if now and start and start <= now:
                reader.problem(
                    field_path(where),
                    f"the deposit start {start.isoformat()} is in the past",
                    (*where, "depositStartTime") if form != "allocations" else where,
                )
            deposit_end = end
        if isinstance(allocation, LockedAllocation):
            vesting = allocation.locked_v2.vesting.start_time
            deposit_end = _deposit_end(config)
            if deposit_end and vesting < deposit_end:
                loc = (form, "lockedAllocations") if form == "launchpool" else (form, index)
                reader.problem(
                    field_path(loc),
                    f"vesting of {allocation.name!r} starts before deposits end",
                    loc,
                )


def _deposit_end(config: LaunchConfig) -> datetime | None:
    for allocation in config.allocations:
        if isinstance(allocation, LaunchpoolAllocation | PresaleAllocation):
            settings: Any = (
                allocation.launchpool_v2
                if isinstance(allocation, LaunchpoolAllocation)
                else allocation.presale_v2
            )
            return _time(settings.deposit_end_condition)
    return None


def _time(condition: Any) -> datetime | None:
    return condition.timestamp if isinstance(condition, TimeAbsolute) else None


def schema() -> Mapping[str, Any]:
    """The JSON Schema of a launch file, for editors (configs/launch.schema.json)."""
    document = LaunchFile.model_json_schema(by_alias=True)
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "launchops launch file"
    return document
