"""Profiles: where launchops sends, with which key, and where it keeps its journal.

Built in: `sandbox` (the default: the local sandbox, started in-process when none is
running, with a throwaway keypair funded by airdrop), `devnet` and `mainnet`. A profiles
file (`--profiles FILE`, else `$LAUNCHOPS_HOME/profiles.yaml`) overrides them or adds
more; `LAUNCHOPS_*` environment variables override both.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from launchops.api.errors import InvalidInputError, LaunchFileError
from launchops.api.fields import Network, problems_of
from launchops.config.files import load_yaml
from launchops.config.landing import Landing

Commitment = Literal["processed", "confirmed", "finalized"]

BUILT_IN: dict[str, dict[str, Any]] = {
    "sandbox": {
        "base_url": "http://127.0.0.1:8899/v1",
        "rpc_url": "http://127.0.0.1:8899",
        "network": "solana-mainnet",
        "keypair": "sandbox",
        "service": "sandbox",
        "embedded_sandbox": True,
        "explorer": "",
    },
    "devnet": {
        "base_url": "https://api.metaplex.dev/v1",
        "rpc_url": "https://api.devnet.solana.com",
        "network": "solana-devnet",
        "keypair": "file:~/.config/solana/id.json",
        "explorer": "https://explorer.solana.com/{kind}/{id}?cluster=devnet",
    },
    "mainnet": {
        "base_url": "https://api.metaplex.com/v1",
        "rpc_url": "https://api.mainnet-beta.solana.com",
        "network": "solana-mainnet",
        "keypair": "file:~/.config/solana/id.json",
        "requires_yes": True,
        "explorer": "https://explorer.solana.com/{kind}/{id}",
    },
}


def home() -> Path:
    """Where launchops keeps its state: `$LAUNCHOPS_HOME`, else `~/.launchops`."""
    return Path(os.environ.get("LAUNCHOPS_HOME", "~/.launchops")).expanduser()


class Profile(BaseSettings):
    """One profile, resolved: built-in values < profiles file < LAUNCHOPS_* variables."""

    model_config = SettingsConfigDict(env_prefix="LAUNCHOPS_", extra="forbid")

    name: str = "sandbox"
    base_url: str
    rpc_url: str
    ws_url: str | None = Field(
        None,
        description="PubSub WebSocket for pushed confirmations; default derived from rpc_url "
        "as web3.js does (ws[s]://, port + 1 when a port is given); 'none' to poll only",
    )
    network: Network = Network.MAINNET
    service: Literal["sandbox", "public"] = Field(
        "public",
        description="what base_url serves: 'public', the public service as it is now (its "
        "allocation types; the network guard) or 'sandbox', the spec as the local sandbox "
        "keeps it (the built-in sandbox profile)",
    )
    genesis_hash: str | None = Field(
        None,
        description="the genesis hash the RPC must answer; default the network's "
        "(mainnet-beta or devnet). Set it to use another cluster on purpose",
    )
    keypair: str = Field(
        description="file:PATH (Solana CLI JSON), env:VAR (base58 or JSON), "
        "prefect-secret:NAME, or sandbox (a throwaway key kept in the state folder)"
    )
    journal_url: str | None = Field(None, description="SQLAlchemy URL; default a SQLite file")
    state_dir: Path = Field(default_factory=home)
    commitment: Commitment = "confirmed"
    concurrency: int = Field(8, ge=1, le=256, description="launches in flight in a batch")
    api_rate: float = Field(50.0, gt=0, description="API calls per second, all launches")
    rpc_rate: float = Field(100.0, gt=0, description="RPC calls per second, all launches")
    skip_preflight: bool = False
    rebroadcast_seconds: float = Field(2.0, gt=0)
    poll_seconds: float = Field(0.2, gt=0, description="status poll cycle, all launches")
    create_attempts: int = Field(3, ge=1, le=10)
    stale_answers_seconds: float = Field(
        120.0,
        gt=0,
        description="how long a submit waits for RPC answers as recent as the slot at which "
        "a blockhash was seen expired before it stops (the launch stays submitting)",
    )
    register_index_seconds: float = Field(
        60.0,
        ge=0,
        le=3600,
        description="how long register asks again while the service answers 400 'not found' "
        "(it has not indexed the launch yet)",
    )
    landing: Landing = Field(
        default_factory=Landing,
        description="how transactions reach the leader: more senders, or Jito bundles",
    )
    requires_yes: bool = False
    embedded_sandbox: bool = False
    sandbox_slot_ms: int = Field(400, ge=0)
    explorer: str = ""
    timeout_seconds: float = Field(
        30.0, gt=0, description="one HTTP request to the service or the RPC, at most"
    )
    rpc_call_seconds: float = Field(
        30.0,
        gt=0,
        le=3600,
        description="one RPC call across its retries: past it with no usable answer, the RPC "
        "is taken as gone for the run, which ends (every launch left where a re-run goes on)",
    )
    service_call_seconds: float = Field(
        60.0,
        gt=0,
        le=3600,
        description="one service call across its retries: past it, the service is taken as "
        "gone for the run, which ends as for the RPC",
    )
    step_seconds: float = Field(
        600.0,
        gt=0,
        le=86400,
        description="one step of a launch (create, submit, ...): past it, the step stops where "
        "it is and a re-run continues it",
    )
    lease_seconds: float = Field(
        60.0, ge=1, le=3600, description="a worker's hold on a launch; another takes over after"
    )
    worker_name: str = Field(
        default_factory=socket.gethostname,
        description="who works launches in this process, as the journal's events name it",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (env_settings, init_settings)  # the environment wins over files

    @model_validator(mode="after")
    def _bundles_need_an_engine(self) -> Profile:
        if self.landing.mode == "bundle" and self.block_engine_url is None:
            raise ValueError(
                "landing.block_engine_url: mode bundle needs the block engine's URL, e.g. "
                "https://mainnet.block-engine.jito.wtf/api/v1"
            )
        return self

    # True when rpc_url was not given but follows the sandbox service at base_url.
    _rpc_from_service: bool = PrivateAttr(default=False)

    @property
    def rpc_from_service(self) -> bool:
        return self._rpc_from_service

    @property
    def profile_dir(self) -> Path:
        return self.state_dir.expanduser() / self.name

    def make_profile_dir(self) -> Path:
        """The profile's folder, made when missing; an InvalidInputError naming it when it
        cannot be (a home that is a file, a read-only disk), not an OSError later."""
        try:
            self.profile_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            rule = (
                f"{self.profile_dir} cannot be made a folder ({exc.strerror or exc}); set "
                "LAUNCHOPS_HOME, or the profile's state_dir, to a folder launchops can write"
            )
            raise InvalidInputError(rule, [(f"profile {self.name}: state_dir", rule)]) from None
        return self.profile_dir

    @property
    def pubsub_url(self) -> str | None:
        if self.ws_url is not None:
            return None if self.ws_url.lower() in ("", "none", "off") else self.ws_url
        from launchops.chain.watch import pubsub_url

        return pubsub_url(self.rpc_url)

    @property
    def journal(self) -> str:
        return self.journal_url or f"sqlite:///{self.profile_dir / 'journal.db'}"

    @property
    def block_engine_url(self) -> str | None:
        """Where bundles go: the landing section's block engine, else a sandbox's own."""
        return self.landing.engine_url(self.rpc_url, self.service == "sandbox")

    def explorer_link(self, kind: Literal["tx", "address"], value: str) -> str | None:
        return self.explorer.format(kind=kind, id=value) if self.explorer else None


def load_profile(
    name: str = "sandbox", *, profiles_file: Path | None = None, **overrides: Any
) -> Profile:
    """The named profile with every override applied; a bad one names the field."""
    path = profiles_file or home() / "profiles.yaml"
    from_file: dict[str, Any] = {}
    if path.is_file():
        from_file = _from_file(path, name)
    elif profiles_file is not None:
        raise InvalidInputError(f"{path}: no such file", [(str(path), "no such file")])
    if name not in BUILT_IN and not from_file:
        known = ", ".join(sorted(BUILT_IN))
        raise InvalidInputError(
            f"unknown profile {name!r}",
            [("--profile", f"unknown profile {name!r}; built in: {known}")],
        )
    values = {
        **BUILT_IN.get(name, {}),
        **from_file,
        **{k: v for k, v in overrides.items() if v is not None},
    }
    follows = _rpc_follows_service(values, from_file, overrides)
    if follows:  # a sandbox serves its RPC where it serves /v1: one chain, not two
        base = overrides.get("base_url") or os.environ.get("LAUNCHOPS_BASE_URL")
        base = base or values["base_url"]
        values["rpc_url"] = sandbox_root(base)
    try:
        profile = Profile(name=name, **values)
    except ValidationError as exc:
        problems = [
            (_where(field, name, path, from_file, overrides), message)
            for field, message in problems_of(exc, values)
        ]
        raise InvalidInputError(f"profile {name} is invalid", problems) from None
    profile._rpc_from_service = follows
    return profile


def _from_file(path: Path, name: str) -> dict[str, Any]:
    """Profile `name`'s fields in the profiles file `path` ({} when it has none); a file of
    another shape is refused naming it and what it must be."""
    try:
        document = load_yaml(path)
    except LaunchFileError as exc:
        raise InvalidInputError(f"{path}: cannot be used", exc.problems) from None
    shape = "profiles: {NAME: {field: value}}"
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise InvalidInputError(f"{path}: cannot be used", [(str(path), f"must be {shape}")])
    profiles = document.get("profiles") or {}
    if not isinstance(profiles, dict):
        why = f"must map each profile's name to its fields ({shape})"
        raise InvalidInputError(f"{path}: cannot be used", [(f"{path}: profiles", why)])
    found = profiles.get(name) or {}
    if not isinstance(found, dict):
        why = "must be a mapping of its fields (rpc_url: ..., keypair: ...)"
        raise InvalidInputError(f"{path}: cannot be used", [(f"{path}: profiles.{name}", why)])
    return found


def _where(
    field: str, name: str, path: Path, from_file: dict[str, Any], overrides: dict[str, Any]
) -> str:
    """Where a bad value came from, as the user set it: the environment variable (which
    wins), the profiles file, or what the command was given."""
    top = field.split(".")[0].split("[")[0]
    variable = f"LAUNCHOPS_{top.upper()}"
    if top and variable in os.environ:
        return variable if top == field else f"{variable} ({field})"
    if overrides.get(top) is None and top in from_file:
        return f"{path}: profiles.{name}.{field}"
    return f"profile {name}: {field}"


def sandbox_root(base_url: str) -> str:
    """Where a sandbox serving `base_url` (its /v1) serves the rest: its RPC, /_sandbox."""
    root = base_url.rstrip("/")
    return root.removesuffix("/v1") or root


def _rpc_follows_service(
    values: dict[str, Any], from_file: dict[str, Any], overrides: dict[str, Any]
) -> bool:
    """Whether the RPC URL comes from the service: a sandbox service and no RPC URL given
    (LAUNCHOPS_RPC_URL, the call's, or the profiles file's when its base_url is the one
    used: a --base-url elsewhere is another sandbox, with its own RPC)."""
    service = os.environ.get("LAUNCHOPS_SERVICE") or values.get("service")
    base_moved = "LAUNCHOPS_BASE_URL" in os.environ or overrides.get("base_url") is not None
    given = (
        overrides.get("rpc_url") is not None
        or "LAUNCHOPS_RPC_URL" in os.environ
        or ("rpc_url" in from_file and not base_moved)
    )
    return service == "sandbox" and not given and bool(values.get("base_url"))
