"""The launch half of the contract: the `launch` object of create and register, each launch
type's rules, and the create and register bodies and answers, as the public JS client
sends them (genesis-api.md, public-service-now.md). `launchops.api.models` re-exports
every name here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)
from solders.pubkey import Pubkey

from launchops.api.allocations import (
    BONDING_CURVE_DECIMALS,
    BONDING_CURVE_SUPPLY,
    Allocation,
    BondingCurveAllocation,
    LaunchpoolAllocation,
    PresaleAllocation,
    fund_flows,
)
from launchops.api.amounts import Decimals, Integer, Supply, base_units, whole_tokens
from launchops.api.conditions import (
    RaydiumLP,
)
from launchops.api.fields import (
    U64_MAX,
    Base64Bytes,
    Blockhash,
    HttpUrl,
    ImageUrl,
    Network,
    PublicKey,
    Text,
    WireModel,
    problems_of,
    rule,
)
from launchops.errors import ModelInputError

WRAPPED_SOL_MINT = Pubkey.from_string("So11111111111111111111111111111111111111112")
USDC_MINTS = {
    Network.MAINNET: Pubkey.from_string("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"),
    Network.DEVNET: Pubkey.from_string("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"),
}
DEFAULT_DECIMALS = 6
DEFAULT_SUPPLY = 1_000_000_000
MAX_BUCKETS = 100
"""Buckets of one launch (allocations and liquidity-pool flows): a bucket's address takes
its index among those of its type as one byte, and each 4 buckets add a transaction."""
CLIENT_CONSTANTS = ("genesisVersion", "genesisIndex", "isMutable", "useExistingToken")
"""Fields of `launch` the public client always sends with one value: launchops sends them
too, and leaves them out of a launch's hash (keys made before they were sent stay)."""
# What each launch type needs among its allocations.
MECHANICS: dict[str, type] = {
    "launchpool": LaunchpoolAllocation,
    "presale": PresaleAllocation,
    "bondingCurve": BondingCurveAllocation,
}
MECHANIC_NAMES = {
    "launchpool": "launchpoolV2",
    "presale": "presaleV2",
    "bondingCurve": "bondingCurveV2",
}


class BlockhashInfo(WireModel):
    """The blockhash built transactions carry (create's, and fund's and withdraw's)."""

    blockhash: Blockhash
    last_valid_block_height: Integer(0, U64_MAX)


class ExternalLinks(WireModel):
    """`externalLinks` of a launch: its website (an http(s) URL), Twitter and Telegram."""

    website: HttpUrl | None = None
    twitter: str | None = None
    telegram: str | None = None


class LaunchConfig(WireModel):
    """The `launch` object of create and register, with every rule of spec sections 2, 8,
    and the public service's for a bonding curve."""

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> LaunchConfig:  # type: ignore[override]
        """The launch in `obj`, or a ModelInputError naming each field and rule as the
        README writes them (`launch.symbol: must be 1 to 10 characters (got 14)`), not
        pydantic's own text."""
        try:
            return super().model_validate(obj, **options)
        except ValidationError as exc:
            found = [(f"launch.{f}", m) for f, m in problems_of(exc, obj)]
            raise ModelInputError(found, exc.errors(include_url=False)) from None

    name: Text(1, 32)
    symbol: Text(1, 10)
    image: ImageUrl
    description: Text(0, 250) | None = None
    decimals: Decimals = DEFAULT_DECIMALS
    supply: Supply = Field(DEFAULT_SUPPLY, description="whole tokens; at most 10^18")
    network: Network = Network.MAINNET
    quote_mint: PublicKey = Field(str(WRAPPED_SOL_MINT), validate_default=True)
    type: Literal["launchpool", "presale", "bondingCurve"]
    finalize: bool = True
    allocations: list[Allocation] = Field(min_length=1)
    external_links: ExternalLinks | None = None
    public_key: PublicKey
    genesis_version: Literal["v2"] = "v2"
    genesis_index: Literal[0] = 0
    is_mutable: Literal[True] = True
    use_existing_token: Literal[False] = False

    @model_validator(mode="after")
    def _check_supply_and_mechanic(self) -> LaunchConfig:
        buckets = len(self.buckets())
        if buckets > MAX_BUCKETS:
            raise rule(
                "buckets",
                f"a launch holds at most {MAX_BUCKETS} buckets (allocations and liquidity-pool "
                f"flows); this one has {buckets}",
            )
        if self.supply * 10**self.decimals > U64_MAX:
            raise rule(
                "supply",
                f"supply {self.supply} with {self.decimals} decimals does not fit a token "
                "mint (supply x 10^decimals must be below 2^64)",
            )
        allocated = sum(base_units(b.supply, self.decimals) for b in self.buckets())
        if allocated > self.supply * 10**self.decimals:
            raise rule(
                "allocations",
                f"allocations (with their liquidity-pool supply) add up to "
                f"{whole_tokens(allocated, self.decimals)} tokens, more than the supply "
                f"{self.supply}",
            )
        if not any(isinstance(a, MECHANICS[self.type]) for a in self.allocations):
            kind = MECHANIC_NAMES[self.type]
            raise rule("mechanic", f"a {self.type} launch needs a {kind} allocation")
        if self.type == "bondingCurve":
            self._check_bonding_curve()
        return self

    def _check_bonding_curve(self) -> None:
        """One bondingCurveV2 and nothing else; the fixed supply, decimals and SOL quote."""
        if len(self.allocations) != 1:
            raise rule("mechanic", "a bondingCurve launch has one allocation, its bondingCurveV2")
        fixed = (BONDING_CURVE_SUPPLY, BONDING_CURVE_DECIMALS, WRAPPED_SOL_MINT)
        if (self.supply, self.decimals, self.quote_mint) != fixed:
            raise rule(
                "bonding_curve",
                f"a bondingCurve launch has supply {BONDING_CURVE_SUPPLY}, "
                f"{BONDING_CURVE_DECIMALS} decimals and SOL as its quote (got supply "
                f"{self.supply}, {self.decimals} decimals, quote {self.quote_mint})",
            )

    def buckets(self) -> list[Allocation | RaydiumLP]:
        """Every bucket that holds tokens: each allocation, then each liquidity-pool flow
        (of a launchpool or a bonding curve) that holds some."""
        flows = [
            flow
            for a in self.allocations
            for flow in fund_flows(a)
            if isinstance(flow, RaydiumLP) and flow.supply > 0
        ]
        return [*self.allocations, *flows]

    @model_serializer(mode="wrap")
    def _no_empty_description(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """An empty description is left out, as the public client does (`""` is falsy)."""
        data: dict[str, Any] = handler(self)
        if self.description == "":
            data.pop("description", None)
        return data

    def hashed(self) -> dict[str, object]:
        """The wire form a launch's hash covers: without the client's constants (and with
        an empty description, as keys were made before it was left out)."""
        wire = self.to_wire()
        if self.description == "":
            wire["description"] = ""
        return {k: v for k, v in wire.items() if k not in CLIENT_CONSTANTS}


class AgentLink(WireModel):
    """`agent` of create and register: the agent's Core asset, owned by the wallet, whose
    asset-signer wallet becomes the creator; `setToken` makes the new token the agent's
    (one time only, irreversible)."""

    mint: PublicKey
    set_token: bool | None = None


class CreateLaunchRequest(WireModel):
    """POST /launches/create: the creator's `wallet` (which must equal
    `launch.publicKey`), the launch, and the agent it is for, if any."""

    wallet: PublicKey
    build_all_tx: bool = True  # the public client's spelling (its docs say buildAllTxs)
    agent: AgentLink | None = None
    launch: LaunchConfig

    @model_validator(mode="after")
    def _public_key_is_wallet(self) -> CreateLaunchRequest:
        if self.launch.public_key != self.wallet:
            raise rule("public_key", "launch.publicKey must equal the top-level wallet")
        return self


class CreateLaunchResponse(WireModel):
    """The answer of create: the transactions the service built and partly signed
    (base64, all on `blockhash`), for the creator to sign and send, and the new mint
    and genesis account."""

    success: Literal[True] = True
    transactions: list[Base64Bytes] = Field(min_length=1)
    blockhash: BlockhashInfo
    mint_address: PublicKey
    genesis_account: PublicKey


class RegisterLaunchRequest(WireModel):
    """What the public client sends: the create body again, with the genesis account,
    the network, the creator's wallet and an optional Twitter verification token."""

    genesis_account: PublicKey
    network: Network = Network.MAINNET
    creator_wallet: PublicKey | None = None
    twitter_verification_token: str | None = Field(None, repr=False)
    agent: AgentLink | None = None
    wallet: PublicKey | None = None
    build_all_tx: bool | None = None
    launch: LaunchConfig

    @model_validator(mode="after")
    def _network_matches(self) -> RegisterLaunchRequest:
        if self.launch.network != self.network:
            raise rule(
                "network",
                f"network {self.network} differs from launch.network {self.launch.network}",
            )
        return self


class RegisteredLaunch(WireModel):
    """`launch` of a register answer: the launch's id on the service and its page (`link`)."""

    id: str
    link: str


class RegisteredToken(WireModel):
    """`token` of a register answer: the token's id on the service and its mint."""

    id: str
    mint_address: PublicKey


class RegisterLaunchResponse(WireModel):
    """The answer of POST /launches/register: the launch and its token as registered;
    `existing` when the genesis account was registered before."""

    success: Literal[True] = True
    existing: bool | None = None
    launch: RegisteredLaunch
    token: RegisteredToken
