"""Launch files: YAML in, a validated `LaunchConfig` and its stable key out.

Four forms: a `launchpool:`, `presale:` or `bondingCurve:` recipe (`recipes.py`), or
`type:` with a raw `allocations:` list for full control; any of them may launch for an
agent (`agent: {mint, setToken}`). `${VAR}` (or `${VAR:-default}`) expands from the
environment. Every problem names the file, the line, the field and the rule; loading
makes no network call.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pydantic
from pydantic import Field, field_validator, model_validator
from solders.pubkey import Pubkey

from launchops.api.allocations import (
    Allocation,
)
from launchops.api.amounts import Decimals, Supply
from launchops.api.errors import LaunchFileError
from launchops.api.fields import (
    HttpUrl,
    ImageUrl,
    Network,
    PublicKey,
    Text,
    clean_loc,
    error_message,
    field_path,
)
from launchops.api.models import USDC_MINTS, WRAPPED_SOL_MINT, AgentLink, LaunchConfig
from launchops.api.programs import agent_wallet
from launchops.config.reader import FileReader
from launchops.config.recipes import (
    RECIPE_DECIMALS,
    RECIPE_SUPPLY,
    BondingCurveRecipe,
    LaunchpoolRecipe,
    PresaleRecipe,
    StrictModel,
)
from launchops.config.rules import (
    check_profile,
    check_public_service,
    check_rules,
    unknown_fields,
)
from launchops.config.schedule import Schedule
from launchops.config.secrets import NO_SECRETS, LaunchSecrets, load_first_buyer
from launchops.errors import KeypairError
from launchops.journal.records import LaunchOrder

if TYPE_CHECKING:
    from launchops.config.profiles import Profile

LAUNCH_FILE_SUFFIXES = (".yaml", ".yml")
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class Links(StrictModel):
    """`externalLinks:` of a launch file: a website (an http(s) URL), Twitter and Telegram."""

    website: HttpUrl | None = None
    twitter: str | None = None
    telegram: str | None = None


class AgentFile(StrictModel):
    """`agent:`: launch for an agent whose Core asset the creator's wallet owns."""

    mint: PublicKey = Field(description="the agent's Core asset")
    set_token: bool = Field(
        False, description="make the new token the agent's token (one time only, irreversible)"
    )


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
    bonding_curve: BondingCurveRecipe | None = None
    type: Literal["launchpool", "presale", "bondingCurve"] | None = Field(
        None, description="with allocations"
    )
    decimals: Decimals | None = Field(None, description="with allocations, 1 to 9; default 6")
    supply: Supply | None = Field(
        None, description="whole tokens, with allocations, at most 10^18; default 10^9"
    )
    allocations: list[Allocation] | None = None
    schedule: str | None = Field(
        None,
        description="when its own deployment launches it: a time with its zone "
        "(2027-06-01T15:00:00Z, 2027-06-01T15:00:00+02:00) or a cron expression (UTC)",
    )
    agent: AgentFile | None = None
    twitter_verification_token: str | None = Field(
        None,
        repr=False,
        description="from a prior Twitter verification, sent with register (never logged or "
        "journaled); write ${VAR} to keep it out of the file",
    )

    @model_validator(mode="before")
    @classmethod
    def _bare_bonding_curve(cls, data: Any) -> Any:
        """`bondingCurve:` with nothing under it is a plain curve, as `bondingCurve: {}`."""
        if isinstance(data, dict) and "bondingCurve" in data and data["bondingCurve"] is None:
            return {**data, "bondingCurve": {}}
        return data

    @field_validator("schedule", mode="before")
    @classmethod
    def _schedule_form(cls, value: Any) -> Any:
        """A time with its zone (quoted, or unquoted: YAML reads it as a timestamp, kept as
        the text it was) or a cron expression; a time without a zone says how to write one."""
        if value is None:
            return value
        try:
            return Schedule.parse(value).text
        except ValueError as exc:
            raise _rule("schedule", str(exc)) from None

    @model_validator(mode="after")
    def _one_form(self) -> LaunchFile:
        forms = [f for f in FORMS if getattr(self, f) is not None]
        if len(forms) != 1:
            raise _rule(
                "form", "give exactly one of launchpool:, presale:, bondingCurve: or allocations:"
            )
        if self.allocations is not None and self.type is None:
            raise _rule(
                "form", "allocations: needs type: launchpool, type: presale or type: bondingCurve"
            )
        if self.allocations is None and (self.type or self.decimals or self.supply):
            raise _rule("form", "type, decimals and supply go with allocations:; recipes fix them")
        return self

    @property
    def form(self) -> str:
        """Which form the file takes: `launchpool`, `presale`, `bondingCurve` or
        `allocations`."""
        return next(wire for f, wire in FORMS.items() if getattr(self, f) is not None)

    def compile(
        self, wallet: Pubkey, network: Network, first_buyer: Pubkey | None = None
    ) -> LaunchConfig:
        """The spec's launch configuration of this file; `first_buyer` is the key of
        `bondingCurve.firstBuyWallet`, when it gives one."""
        agents_wallet = agent_wallet(self.agent.mint) if self.agent else None
        if self.launchpool is not None:
            kind, allocations = "launchpool", self.launchpool.compile(wallet)
        elif self.presale is not None:
            kind, allocations = "presale", self.presale.compile(wallet)
        elif self.bonding_curve is not None:
            recipe = self.bonding_curve
            kind, allocations = "bondingCurve", recipe.compile(wallet, agents_wallet, first_buyer)
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


FORMS = {  # each form's field, and its key in the file
    "launchpool": "launchpool",
    "presale": "presale",
    "bonding_curve": "bondingCurve",
    "allocations": "allocations",
}


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
    """A validated launch: its key, configuration, the hash of it, and where it came from;
    the agent it launches for, and the file's secrets (kept in memory, never journaled)."""

    key: str
    config: LaunchConfig
    config_hash: str
    source: str
    schedule: str | None = None
    agent: AgentLink | None = None
    secrets: LaunchSecrets = field(default=NO_SECRETS, repr=False)

    @property
    def order(self) -> LaunchOrder:
        """What the journal keeps: the launch as sent, the agent, the secrets' names."""
        agent = self.agent.to_wire() if self.agent else None
        return LaunchOrder(self.config.to_wire(), agent, self.secrets.names)

    @property
    def wire(self) -> dict[str, Any]:
        return self.order.to_json()


def config_hash(config: LaunchConfig, agent: AgentLink | None = None) -> str:
    """What a launch is: its configuration (without the client's constants) and agent."""
    hashed: Any = config.hashed()
    if agent is not None:
        hashed = {"launch": hashed, "agent": agent.to_wire()}
    canonical = json.dumps(hashed, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def launch_key(config: LaunchConfig, given: str | None, agent: AgentLink | None = None) -> str:
    """A launch's journal key: `given` (the file's `id`) when there is one, else `h-` and
    16 hex digits of its `config_hash`."""
    return given or f"h-{config_hash(config, agent)[:16]}"


# ── loading ─────────────────────────────────────────────────────────────────


def load_launch_file(
    path: Path,
    *,
    wallet: Pubkey | None = None,
    network: Network | None = None,
    pinned_network: bool = False,
    now: datetime | None = None,
    public_service: bool = False,
    resolver: Callable[[str], str] | None = None,
) -> LaunchPlan:
    """Validate one launch file; raises `LaunchFileError` listing every problem found.

    `wallet` is the profile's key (the creator); `network` the profile's, enforced when
    `pinned_network`; `now` turns on the "not in the past" rule (None: a resumed launch);
    `public_service` the rules of the public service as it is now (a profile that targets
    it: the allocation types it no longer takes are refused before anything is sent);
    `resolver` reads a `prefect-secret:` first buyer's key.
    """
    reader = FileReader(path)
    parsed = _parsed(reader)
    unknown_fields(parsed, (), reader)
    check_profile(reader, parsed.wallet, parsed.network, wallet, network, pinned_network)
    secrets = _secrets(parsed, reader, resolver)
    _raise_if_any(reader)
    creator = wallet or parsed.wallet
    assert creator is not None
    form = parsed.form
    buyer = secrets.first_buyer.pubkey() if secrets.first_buyer else None
    try:
        config = parsed.compile(creator, parsed.network or network or Network.MAINNET, buyer)
    except (pydantic.ValidationError, ValueError) as exc:
        errors = exc.errors(include_url=False) if isinstance(exc, pydantic.ValidationError) else []
        for error in errors or [{"loc": (), "msg": str(exc), "type": "value_error"}]:
            loc = (form, *clean_loc(tuple(error["loc"]), None)[1:])
            reader.problem(field_path(loc), error_message(error), loc)
        raise LaunchFileError(reader.problems) from None
    check_rules(config, form, reader, now)
    if public_service:
        check_public_service(config, form, reader)
    _raise_if_any(reader)
    agent = (
        AgentLink(mint=parsed.agent.mint, set_token=parsed.agent.set_token)
        if parsed.agent
        else None
    )
    return LaunchPlan(
        key=launch_key(config, parsed.id, agent),
        config=config,
        config_hash=config_hash(config, agent),
        source=str(path),
        schedule=parsed.schedule,
        agent=agent,
        secrets=secrets,
    )


def _secrets(
    parsed: LaunchFile, reader: FileReader, resolver: Callable[[str], str] | None
) -> LaunchSecrets:
    """The file's secrets; a key that cannot be loaded is a problem at its line (the
    message never shows key material)."""
    source = parsed.bonding_curve.first_buy_wallet if parsed.bonding_curve else None
    buyer = None
    if source is not None:
        try:
            buyer = load_first_buyer(source, resolver)
        except KeypairError as exc:
            loc = ("bondingCurve", "firstBuyWallet")
            reader.problem(field_path(loc), f"cannot be loaded: {exc}", loc)
    return LaunchSecrets(first_buyer=buyer, twitter_token=parsed.twitter_verification_token)


def _parsed(reader: FileReader) -> LaunchFile:
    data = reader.read()
    if data is None:
        raise LaunchFileError(reader.problems)
    try:
        return LaunchFile.model_validate(data)
    except pydantic.ValidationError as exc:
        for error in exc.errors(include_url=False):
            loc = clean_loc(tuple(error["loc"]), data)
            reader.problem(field_path(loc), error_message(error), loc)
        raise LaunchFileError(reader.problems) from None


def _raise_if_any(reader: FileReader) -> None:
    if reader.problems:
        raise LaunchFileError(reader.problems)


# YAML files of a folder that are not launch files: profiles, and the examples of an agent
# file and of a claim's wallets list (configs/).
NOT_LAUNCH_FILES = frozenset({"profiles", "agent", "claim-wallets"})


def launch_files(target: Path) -> list[Path]:
    """A file, or every launch file (*.yaml, *.yml but NOT_LAUNCH_FILES) below a folder,
    sorted. Whatever is named so and is not a folder is one (a symlink that loops, a FIFO):
    reading it says what is wrong with it, nothing is skipped without a word."""
    if target.is_dir():
        found = (
            p for p in target.rglob("*") if p.suffix in LAUNCH_FILE_SUFFIXES and not _is_dir(p)
        )
        return sorted(p for p in found if p.stem not in NOT_LAUNCH_FILES)
    return [target]


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a symlink that loops: not a folder
        return False


def schema() -> Mapping[str, Any]:
    """The JSON Schema of a launch file, for editors (configs/launch.schema.json)."""
    document = LaunchFile.model_json_schema(by_alias=True)
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "launchops launch file"
    return document


def plan_launch(
    profile: Profile,
    wallet: Any,
    path: Path,
    *,
    check_times: bool,
    resolver: Callable[[str], str] | None = None,
) -> LaunchPlan:
    """The launch file, validated as the profile sends it (its key, network, service); the
    "not in the past" rule on when `check_times`."""
    return load_launch_file(
        path,
        wallet=wallet,
        network=profile.network,
        pinned_network=not profile.embedded_sandbox,  # the sandbox serves both networks
        now=datetime.now(UTC) if check_times else None,
        public_service=profile.service == "public",
        resolver=resolver,
    )
