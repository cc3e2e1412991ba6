"""The sandbox's agent registry: the index behind GET /agents, hosted cards, and the fund
and withdraw transaction builders. Each agent's mpl-core asset account is on the chain."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from solders.account import Account
from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.system_program import TransferParams, transfer
from solders.transaction import VersionedTransaction

from launchops.api import programs as p
from launchops.api.amounts import lamports
from launchops.api.fields import Network, iso_utc
from launchops.api.models import (
    AgentRecord,
    AgentsPage,
    AgentsQuery,
    BlockhashInfo,
    FundRequest,
    TransactionResponse,
    WithdrawRequest,
)
from launchops.sandbox.chain import Chain
from launchops.sandbox.store import SandboxStore

EIP8004_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"
_WORDS = [
    "Atlas",
    "Beacon",
    "Cipher",
    "Delta",
    "Echo",
    "Forge",
    "Grove",
    "Harbor",
    "Ion",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Meridian",
    "Nimbus",
    "Orbit",
    "Pioneer",
    "Quill",
    "Relay",
    "Summit",
    "Tide",
    "Umbra",
    "Vector",
    "Willow",
    "Zenith",
]
_SKILLS = ("research", "trading", "support", "analytics", "translation", "scheduling", "audit")
# GET /agents's boolean filters: the query's flag, and what an agent needs to pass it.
_FILTERS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "active_only": lambda agent: bool(agent["isActive"]),
    "has_agent_token": lambda agent: bool(agent["agentToken"]),
    "has_services": lambda agent: bool((agent.get("metadata") or {}).get("services")),
    "spotlight": lambda agent: bool(agent["spotlightedAt"]),
}


class Registry:
    def __init__(self, store: SandboxStore, chain: Chain, public_url: str) -> None:
        self.store = store
        self.chain = chain
        self.public_url = public_url
        self.before_read: Callable[[], None] | None = None  # indexes what landed since

    def _index(self) -> None:
        if self.before_read is not None:
            self.before_read()

    def agent(self, address: str, network: str) -> dict[str, Any] | None:
        self._index()
        record = self.store.get("agent", address)
        return record if record and record["network"] == network else None

    def list(self, query: AgentsQuery) -> AgentsPage:
        self._index()
        needle = (query.query or "").lower()
        tests = [test for flag, test in _FILTERS.items() if getattr(query, flag)]
        agents = [
            a
            for a in self.store.all("agent")
            if a["network"] == query.network
            and needle in a["name"].lower()
            and all(test(a) for test in tests)
        ]
        agents.sort(
            key=lambda a: (a["createdAt"], a["mintAddress"]), reverse=query.sort == "latest"
        )
        start = (query.page - 1) * query.page_size
        return AgentsPage(
            agents=[AgentRecord.model_validate(a) for a in agents[start : start + query.page_size]],
            total=len(agents),
            page=query.page,
            page_size=query.page_size,
            total_pages=-(-len(agents) // query.page_size),
        )

    @staticmethod
    def card_etag(card: dict[str, Any]) -> str:
        digest = hashlib.sha256(json.dumps(card, sort_keys=True).encode()).hexdigest()[:16]
        return f'"{digest}"'

    # ── fund and withdraw ───────────────────────────────────────────────────

    def build_fund(self, asset: Pubkey, body: FundRequest) -> TransactionResponse:
        ixs = [
            transfer(
                TransferParams(
                    from_pubkey=body.sender,
                    to_pubkey=p.agent_wallet(asset),
                    lamports=lamports(body.amount),
                )
            ),
            p.memo(body.memo, body.sender),
        ]
        return self._unsigned(body.sender, ixs)

    def build_withdraw(self, asset: Pubkey, body: WithdrawRequest) -> TransactionResponse:
        inner = transfer(
            TransferParams(
                from_pubkey=p.agent_wallet(asset),
                to_pubkey=body.sender,
                lamports=lamports(body.amount),
            )
        )
        return self._unsigned(
            body.sender, [p.execute(asset, body.sender, body.sender, inner, None)]
        )

    def asset_owner(self, asset: Pubkey) -> Pubkey | None:
        account = self.chain.account(asset)
        if account is None or account.owner != p.MPL_CORE_PROGRAM:
            return None
        return p.asset_owner(bytes(account.data))

    def _unsigned(self, payer: Pubkey, ixs: list[Any]) -> TransactionResponse:
        blockhash, last_valid = self.chain.blockhash_for_new()
        [message] = self.chain.build(payer, [ixs], blockhash)
        empty = [Signature.default()] * message.header.num_required_signatures
        return TransactionResponse(
            tx=bytes(VersionedTransaction.populate(message, empty)),
            blockhash=BlockhashInfo(blockhash=blockhash, last_valid_block_height=last_valid),
        )

    # ── seeding ─────────────────────────────────────────────────────────────

    def seed(
        self,
        count: int,
        *,
        network: str = Network.MAINNET,
        owner: Pubkey | None = None,
        rng: random.Random | None = None,
    ) -> list[dict[str, Any]]:
        """Add `count` realistic agents, their assets written on the chain. Their names
        are the same on every sandbox (`Atlas Research 1`, `Beacon Trading 2`, ...: the
        n-th agent of a network is named for the n-th skill, the first an active
        researcher), so a search a reader copies finds them."""
        start = sum(1 for a in self.store.all("agent") if a["network"] == str(network))
        rng = rng or random.Random(f"{network}:{start}")
        now = datetime.now(UTC)
        return [
            self.add_agent(
                self._fake_agent(rng, network, now, start + index), owner or Keypair().pubkey()
            )
            for index in range(count)
        ]

    def add_agent(self, record: dict[str, Any], owner: Pubkey) -> dict[str, Any]:
        asset = Pubkey.from_string(record["mintAddress"])
        data = p.asset_data(owner, owner, record["name"], record["agentMetadataUri"] or "")
        account = Account(self.chain.rent_exempt(len(data)), data, p.MPL_CORE_PROGRAM, False)
        self.chain.set_account(asset, account)  # kept by the store, with a data folder
        record["authority"] = str(owner)
        self.store.put("agent", record["mintAddress"], record)
        return record

    # Long for its literal: one whole agent record, every field the spec lists.
    def _fake_agent(
        self, rng: random.Random, network: str, now: datetime, number: int
    ) -> dict[str, Any]:
        asset = Keypair().pubkey()
        skill = _SKILLS[number % len(_SKILLS)]
        name = f"{_WORDS[number % len(_WORDS)]} {skill.title()} {number + 1}"
        active = number % 4 != 3  # three in four
        others = [s for s in _SKILLS if s != skill]
        skills = [skill, *rng.sample(others, k=rng.randint(0, 2))]
        card_url = f"{self.public_url}/v1/agents/{asset}/agent-card.json"
        services = []
        if rng.random() < 0.6:
            services = [
                {"name": "A2A", "endpoint": card_url, "version": "0.3.0"},
                {"name": "web", "endpoint": f"https://{name.split()[0].lower()}.example.com"},
            ]
        created = now - timedelta(minutes=rng.randint(1, 60 * 24 * 90))
        description = f"{name} handles {', '.join(skills)} for its owner."
        image = f"https://gateway.irys.xyz/{Keypair().pubkey()}"
        card = _a2a_card(name, description, card_url, skills, streaming=rng.random() < 0.3)
        spotlit = rng.random() < 0.15
        verified = rng.random() < 0.3
        return {
            "mintAddress": str(asset),
            "network": str(network),
            "name": name,
            "description": description,
            "image": image,
            "walletAddress": str(p.agent_wallet(asset)),
            "authority": None,
            "agentToken": str(Keypair().pubkey()) if rng.random() < 0.4 else None,
            "agentMetadataUri": card_url,
            "metadata": {
                "type": EIP8004_TYPE,
                "name": name,
                "description": description,
                "image": image,
                "services": services,
                "active": active,
                "registrations": [{"agentId": str(asset), "agentRegistry": "solana:101:metaplex"}],
                "supportedTrust": ["reputation"],
            },
            "a2aCard": card,
            "isActive": active,
            "registrationSignature": str(Keypair().sign_message(bytes(asset))),
            "indexedAt": iso_utc(created + timedelta(seconds=5)),
            "spotlightedAt": iso_utc(created + timedelta(days=1)) if spotlit else None,
            "verifiedAt": iso_utc(created + timedelta(hours=2)) if verified else None,
            "createdAt": iso_utc(created),
            "updatedAt": iso_utc(created + timedelta(hours=3)),
        }


def _a2a_card(
    name: str, description: str, url: str, skills: list[str], *, streaming: bool
) -> dict[str, Any]:
    """A seeded agent's A2A card, as the service serves one."""
    return {
        "protocolVersion": "0.3.0",
        "name": name,
        "description": description,
        "url": url,
        "version": "1.0.0",
        "capabilities": {"streaming": streaming},
        "skills": [
            {"id": s, "name": s.title(), "description": f"{s.title()} tasks", "tags": [s]}
            for s in skills
        ],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
    }
