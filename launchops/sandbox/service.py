"""The sandbox's service: chain, store, registry, faults and stats behind one object that
the HTTP layer (`app.py`, `routes/`) only translates to and from the wire. Its answers are
the contract's models; the store's documents are dicts, read into models here."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from solders.keypair import Keypair
from solders.message import to_bytes_versioned
from solders.pubkey import Pubkey
from solders.transaction import VersionedTransaction

from launchops.api.models import (
    BaseToken,
    BlockhashInfo,
    CreateLaunchRequest,
    CreateLaunchResponse,
    ErrorDetail,
    LaunchConfig,
    RegisterLaunchRequest,
    RegisterLaunchResponse,
    TokenData,
)
from launchops.errors import LaunchForbidden
from launchops.sandbox import launches, minting
from launchops.sandbox.block_engine import BlockEngine
from launchops.sandbox.chain import Chain
from launchops.sandbox.emulation import withdraw_of
from launchops.sandbox.faults import FaultInjector, Faults, Stats
from launchops.sandbox.launches import LaunchRejected
from launchops.sandbox.play import played
from launchops.sandbox.programs_played import PLAYERS
from launchops.sandbox.registry import Registry
from launchops.sandbox.rewards import Rewards
from launchops.sandbox.rpc import PROGRESS_METHODS, RpcMethods
from launchops.sandbox.sniper import Sniper
from launchops.sandbox.status import LaunchStatuses
from launchops.sandbox.store import SandboxStore

NOT_OWNED = "Agent is not owned by the connected wallet"  # also before it is indexed


class SandboxService:
    def __init__(
        self,
        *,
        slot_ms: int = 400,
        data_dir: Path | None = None,
        faults: Faults | None = None,
        public_url: str = "http://127.0.0.1:8899",
        seed: int | None = None,
    ) -> None:
        self.slot_ms = slot_ms
        self.public_url = public_url
        self.injector = FaultInjector(faults, seed)
        self.stats = Stats()
        self.store = SandboxStore(data_dir)
        self.chain = Chain(slot_ms=slot_ms, faults=self.injector.faults)
        if seed is not None:
            self.chain.rng.seed(seed)
        self.store.attach(self.chain)
        self.registry = Registry(self.store, self.chain, public_url)
        self.identity = self._identity()
        self.registry.before_read = lambda: minting.index_minted(self.chain, self.registry)
        # A withdraw's mpl-core Execute lands by emulation, as the rewards do; any other
        # transaction of a program LiteSVM cannot run (Genesis, mpl-core) is played.
        self.chain.emulate = lambda tx: (
            withdraw_of(self.chain, self.registry.asset_owner, tx)
            or played(tx, self.chain.keys_of(tx), PLAYERS)
        )
        self.rewards = Rewards(self.store, self.chain)
        self.statuses = LaunchStatuses(self.store, self.rewards)
        self.rpc = RpcMethods(self.chain, identity=self.identity)
        self.block_engine = BlockEngine(self.chain)
        self.sniper = Sniper(self.chain, self.rewards)
        self.last_rpc_answer: dict[str, Any] | None = None  # the `swapped` RPC fault's
        self._clock: asyncio.Task[None] | None = None

    def _identity(self) -> str:
        """This chain's node identity (`getIdentity`), kept with its data: another sandbox
        is another identity, the same chain restarted is the same."""
        kept = self.store.get("sandbox", "identity")
        if kept is None:
            kept = {"identity": str(Keypair().pubkey())}
            self.store.put("sandbox", "identity", kept)
        return str(kept["identity"])

    @property
    def faults(self) -> Faults:
        return self.injector.faults

    def set_faults(self, faults: Faults) -> None:
        self.injector.faults = faults
        self.chain.faults = faults

    # ── time ────────────────────────────────────────────────────────────────

    def start_clock(self) -> None:
        if self.slot_ms > 0 and self._clock is None:
            self._clock = asyncio.get_running_loop().create_task(self._tick())

    async def stop_clock(self) -> None:
        if self._clock is not None:
            self._clock.cancel()
            await asyncio.gather(self._clock, return_exceptions=True)
            self._clock = None

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        next_at = loop.time()
        while True:
            next_at += self.slot_ms / 1000
            await asyncio.sleep(max(0.0, next_at - loop.time()))
            self.chain.advance()

    def rpc_call(self, method: str, params: Any, behind: int = 0) -> Any:
        """Run one JSON-RPC call (answered from a view `behind` slots old: `stale`)."""
        self.stats.rpc[method] += 1
        if self.slot_ms == 0 and method in PROGRESS_METHODS:
            self.chain.advance()  # at --slot-ms 0, a call that watches the chain moves it
        result = self.rpc.call(method, params, behind)
        if method == "requestAirdrop":
            key = Pubkey.from_string(params[0])
            self.store.save_account(key, self.chain.svm.get_account(key))
        return result

    # ── launches ────────────────────────────────────────────────────────────

    def create_launch(self, body: CreateLaunchRequest) -> CreateLaunchResponse:
        config = body.launch
        agent = body.agent.mint if body.agent else None
        if agent is not None and not self._owns(body.wallet, agent, config.network):
            raise LaunchForbidden(NOT_OWNED)
        attack = None
        if self.faults.compromised_next:  # a compromised service's answer, one attack each
            attack, *rest = self.faults.compromised_next
            self.faults.compromised_next = rest
        built = launches.build_create(self.chain, config, agent, attack)
        self.sniper.watch(
            config, Pubkey.from_string(built["genesis"]), Pubkey.from_string(built["mint"])
        )
        if self.faults.fail_tail_next > 0:  # its first transaction lands, the rest fail
            self.faults.fail_tail_next -= 1
            for raw in built["transactions"][1:]:
                message = VersionedTransaction.from_bytes(raw).message
                self.chain.fail_on_landing(to_bytes_versioned(message))
        self.store.put(
            "create",
            built["genesis"],
            {
                "genesis": built["genesis"],
                "mint": built["mint"],
                "creator": str(body.wallet),
                "agent": str(agent) if agent else None,
                "network": str(config.network),
                "launch": _canonical(config),
                "createdAt": datetime.now(UTC).isoformat(),
                "attack": attack,  # answered as a compromised service, if so
            },
        )
        return CreateLaunchResponse(
            transactions=built["transactions"],
            blockhash=BlockhashInfo(
                blockhash=built["blockhash"],
                last_valid_block_height=built["last_valid_block_height"],
            ),
            mint_address=built["mint"],
            genesis_account=built["genesis"],
        )

    def register_launch(self, body: RegisterLaunchRequest) -> RegisterLaunchResponse:
        genesis = str(body.genesis_account)
        created = self.store.get("create", genesis)
        if created is None:
            raise LaunchRejected("Genesis account not found on-chain")
        if created["network"] != str(body.network):
            raise LaunchRejected(
                "Genesis account not found on-chain",
                [ErrorDetail(path=["network"], message=f"the launch is on {created['network']}")],
            )
        differences = _differences(created["launch"], _canonical(body.launch))
        agent = str(body.agent.mint) if body.agent else None
        if agent != created.get("agent"):
            message = f"the launch was created for agent {created.get('agent')}, not {agent}"
            differences.append(ErrorDetail(path=["agent", "mint"], message=message))
        if differences:
            raise LaunchRejected("Launch does not match the launch that was created", differences)
        if self.chain.account(body.genesis_account) is None:
            raise LaunchRejected("Genesis account not found on-chain")
        existing = self.store.get("registration", genesis)
        if existing is not None:
            return RegisterLaunchResponse.model_validate({**existing["answer"], "existing": True})
        mint = Pubkey.from_string(created["mint"])
        if not self._indexed(mint):
            raise LaunchRejected("Genesis account not found on-chain")
        traded = self.store.get("curve", genesis) is not None  # a swap moved its curve
        launches.verify_on_chain(self.chain, body.launch, body.genesis_account, mint, traded)
        return self._list(body, genesis, created["mint"])

    def _owns(self, wallet: Pubkey, agent: Pubkey, network: str) -> bool:
        """Whether the agent is registered (indexed) and `wallet` owns its asset on-chain."""
        if self.registry.agent(str(agent), str(network)) is None:
            return False
        return self.registry.asset_owner(agent) == wallet

    def _indexed(self, mint: Pubkey) -> bool:
        """Whether the launch is indexed: `register_unindexed_slots` after the last of its
        transactions landed (every one of them touches its mint)."""
        delay = self.faults.register_unindexed_slots
        landed = [self.chain.landed[s].slot for s in self.chain.signatures_of(mint)]
        return not delay or not landed or self.chain.slot >= max(landed) + delay

    def _list(self, body: RegisterLaunchRequest, genesis: str, mint: str) -> RegisterLaunchResponse:
        config = body.launch
        key = f"{config.network}:{mint}"
        token = self.store.get("token", key) or {
            "id": launches.new_id("tok"),
            "baseToken": {
                "address": mint,
                "name": config.name,
                "symbol": config.symbol,
                "image": config.image,
                "description": config.description or "",
            },
            "website": config.external_links.website if config.external_links else None,
            "socials": launches.socials(config),
            "launches": [],
        }
        launch_id = launches.new_id("lch")
        link = f"{self.public_url}/launch/{launch_id}"
        token["launches"].append(launches.listing(config, genesis, link, datetime.now(UTC)))
        answer = {
            "launch": {"id": launch_id, "link": link},
            "token": {"id": token["id"], "mintAddress": mint},
        }
        self.store.put("token", key, token)
        registration = {"answer": answer, "mint": mint, "token": key, **_registered_by(body)}
        self.store.put("registration", genesis, registration)
        return RegisterLaunchResponse.model_validate(answer)

    def registration(self, genesis: str) -> dict[str, Any] | None:
        """What register kept of a launch: its answer, and who registered it how."""
        return self.store.get("registration", genesis)

    def token(self, mint: str, network: str) -> TokenData | None:
        token = self.store.get("token", f"{network}:{mint}")
        if token is None:
            return None
        listed = [{**launch, "status": launches.status_now(launch)} for launch in token["launches"]]
        data = {key: token[key] for key in ("baseToken", "website", "socials")}
        return TokenData.model_validate({"launches": listed, **data})

    def launch_page(self, launch_id: str) -> BaseToken | None:
        """The token a launch page shows, found by the launch's id."""
        for registration in self.store.all("registration"):
            if registration["answer"]["launch"]["id"] == launch_id:
                token = self.store.get("token", registration["token"])
                return BaseToken.model_validate(token["baseToken"]) if token else None
        return None

    def creates(self) -> list[dict[str, Any]]:
        """Every create answered, as `GET /_sandbox/launches` lists it."""
        found = []
        for created in self.store.all("create"):
            mint = Pubkey.from_string(created["mint"])
            found.append(
                {
                    "name": created["launch"]["name"],
                    "symbol": created["launch"]["symbol"],
                    "creator": created["creator"],
                    "network": created["network"],
                    "genesis": created["genesis"],
                    "mint": created["mint"],
                    "mintOnChain": self.chain.account(mint) is not None,
                    "attack": created.get("attack"),
                    "registered": self.store.get("registration", created["genesis"]) is not None,
                }
            )
        return found

    def launch_counts(self) -> dict[str, int]:
        minted = 0
        for created in self.store.all("create"):
            if self.chain.account(Pubkey.from_string(created["mint"])) is not None:
                minted += 1
        return {
            "created": self.store.count("create"),
            "mintsOnChain": minted,
            "registered": self.store.count("registration"),
            "agents": self.store.count("agent"),
        }


def _registered_by(body: RegisterLaunchRequest) -> dict[str, Any]:
    """What the sandbox keeps of register's optional fields. A Twitter verification token
    is taken as verified when the launch names a Twitter link (the sandbox cannot ask
    Twitter), and kept only as its digest: never the token."""
    token = body.twitter_verification_token
    links = body.launch.external_links
    return {
        "creatorWallet": str(body.creator_wallet) if body.creator_wallet else None,
        "agent": body.agent.to_wire() if body.agent else None,
        "twitterVerified": bool(token and links and links.twitter),
        "twitterTokenSha256": hashlib.sha256(token.encode()).hexdigest() if token else None,
    }


def _canonical(config: LaunchConfig) -> dict[str, Any]:
    """The launch as the service compares it: the contract's fields, extras left out."""
    return config.model_dump(mode="json", by_alias=True, exclude=set(config.model_extra or {}))


def _differences(created: dict[str, Any], given: dict[str, Any]) -> list[ErrorDetail]:
    keys = sorted(set(created) | set(given))
    return [
        ErrorDetail(path=["launch", key], message="differs from what was sent to create")
        for key in keys
        if created.get(key) != given.get(key)
    ]
