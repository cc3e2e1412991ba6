"""What the journal keeps, as the core works with it: frozen types with solders keys and
signatures inside. JSON (camelCase, as the journal's rows and the wire have it) appears
only in each type's `to_json` / `from_json`, at the journal's edge.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING, Any

from solders.hash import Hash
from solders.pubkey import Pubkey
from solders.signature import Signature

from launchops.chain.landing import Landing
from launchops.states import Kind, LaunchState, Outcome

if TYPE_CHECKING:
    from launchops.api.models import AgentLink, LaunchConfig, RegisterLaunchResponse


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _key(text: str | None) -> Pubkey | None:
    return Pubkey.from_string(text) if text else None


@dataclass(frozen=True)
class Lease:
    """A worker's hold on one launch: its owner, and the fencing number the journal gave
    when it took the lease (it grows at every new holder). Every write a step makes names
    both, and holds only while both are still the launch's."""

    key: str
    owner: str
    epoch: int


@dataclass(frozen=True)
class Created:
    """What create (or a fund/withdraw build) answered: transactions as the service built
    them, the blockhash they carry, and the accounts a launch makes."""

    transactions: tuple[bytes, ...]
    blockhash: Hash
    last_valid_block_height: int
    mint: Pubkey | None = None
    genesis: Pubkey | None = None
    # The slot of a node's view that called the blockhash valid (launchops.chain.expiry),
    # read before anything was signed: what lets the chain bound the service's expiry.
    seen_valid_at: int | None = None

    def to_json(self) -> dict[str, Any]:
        data = {
            "transactions": [_b64(t) for t in self.transactions],
            "blockhash": str(self.blockhash),
            "lastValidBlockHeight": self.last_valid_block_height,
            "mintAddress": str(self.mint) if self.mint else None,
            "genesisAccount": str(self.genesis) if self.genesis else None,
        }
        if self.seen_valid_at is not None:
            data["blockhashSeenValidAt"] = self.seen_valid_at
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Created:
        return cls(
            transactions=tuple(base64.b64decode(t) for t in data["transactions"]),
            blockhash=Hash.from_string(data["blockhash"]),
            last_valid_block_height=data["lastValidBlockHeight"],
            mint=_key(data.get("mintAddress")),
            genesis=_key(data.get("genesisAccount")),
            seen_valid_at=data.get("blockhashSeenValidAt"),
        )


@dataclass(frozen=True)
class Send:
    """One transaction of an attempt: its signature and what became of it."""

    signature: Signature
    sent: bool = False
    landing: Landing | None = None  # where it landed, once seen (without error)
    last_valid_block_height: int | None = None  # set when re-signed with a fresh blockhash
    replaced: tuple[Signature, ...] = ()  # signatures it had before re-signing

    def landed(self, landing: Landing) -> Send:
        return replace(self, landing=landing)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"signature": str(self.signature), "sent": int(self.sent)}
        if self.landing is not None:
            data.update(slot=self.landing.slot, level=self.landing.level)
        if self.last_valid_block_height is not None:
            data["lastValidBlockHeight"] = self.last_valid_block_height
        if self.replaced:
            data["replaced"] = [str(s) for s in self.replaced]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Send:
        landing = Landing(data.get("slot", 0), data["level"]) if "level" in data else None
        return cls(
            signature=Signature.from_string(data["signature"]),
            sent=bool(data.get("sent")),
            landing=landing,
            last_valid_block_height=data.get("lastValidBlockHeight"),
            replaced=tuple(Signature.from_string(s) for s in data.get("replaced", [])),
        )


@dataclass(frozen=True)
class Spent:
    """What one attempt cost, or offered: how it went out (`plain` or `bundle`), the
    network fees of what landed, the tip offered to the block engine (paid only when the
    bundle landed: `tip_paid`), and buys of others found between the create and the
    creator's first buy (their signatures)."""

    mode: str = "plain"
    fee_lamports: int = 0
    tip_lamports: int = 0
    tip_account: str | None = None
    tip_signature: Signature | None = None
    tip_paid: bool = False
    sniped_by: tuple[str, ...] = ()
    sent_slot: int | None = None  # the slot seen when the first send left
    landed_slot: int | None = None  # the slot its first transaction landed in
    # What left the creator's account in what landed, read from the chain (None: not read)
    creator_lamports: int | None = None

    @property
    def slots_to_land(self) -> int | None:
        if self.sent_slot is None or self.landed_slot is None:
            return None
        return max(0, self.landed_slot - self.sent_slot)

    @property
    def lamports(self) -> int:
        """Lamports this attempt took from the creator: as the chain shows it, where it
        was read; else its fees and the tip paid."""
        if self.creator_lamports is not None:
            return self.creator_lamports
        return self.fee_lamports + (self.tip_lamports if self.tip_paid else 0)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "mode": self.mode,
            "feeLamports": self.fee_lamports,
            "tipLamports": self.tip_lamports,
            "tipPaid": self.tip_paid,
        }
        if self.tip_account:
            data["tipAccount"] = self.tip_account
        if self.tip_signature is not None:
            data["tipSignature"] = str(self.tip_signature)
        if self.sniped_by:
            data["snipedBy"] = list(self.sniped_by)
        if self.sent_slot is not None:
            data["sentSlot"] = self.sent_slot
        if self.landed_slot is not None:
            data["landedSlot"] = self.landed_slot
        if self.creator_lamports is not None:
            data["creatorLamports"] = self.creator_lamports
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Spent:
        tip_signature = data.get("tipSignature")
        return cls(
            mode=data.get("mode", "plain"),
            fee_lamports=int(data.get("feeLamports", 0)),
            tip_lamports=int(data.get("tipLamports", 0)),
            tip_account=data.get("tipAccount"),
            tip_signature=Signature.from_string(tip_signature) if tip_signature else None,
            tip_paid=bool(data.get("tipPaid")),
            sniped_by=tuple(data.get("snipedBy", ())),
            sent_slot=data.get("sentSlot"),
            landed_slot=data.get("landedSlot"),
            creator_lamports=data.get("creatorLamports"),
        )


@dataclass(frozen=True)
class Attempt:
    """One create: its transactions as answered, as signed, and what became of each."""

    number: int
    created: Created
    signed: tuple[bytes, ...] | None = None
    sends: tuple[Send, ...] | None = None
    outcome: Outcome | None = None  # how it ended, when it did not land whole
    spent: Spent | None = None  # fees and tip, once sent

    @property
    def signatures(self) -> list[Signature]:
        return [s.signature for s in self.sends or ()]

    @property
    def anything_sent(self) -> bool:
        return any(s.sent for s in self.sends or ())


@dataclass(frozen=True)
class Registered:
    """What register answered."""

    launch_id: str
    link: str
    token_id: str
    mint: Pubkey | None
    existing: bool = False

    @classmethod
    def of(cls, answer: RegisterLaunchResponse) -> Registered:
        return cls(
            launch_id=answer.launch.id,
            link=answer.launch.link,
            token_id=answer.token.id,
            mint=answer.token.mint_address,
            existing=bool(answer.existing),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "existing": self.existing,
            "launch": {"id": self.launch_id, "link": self.link},
            "token": {"id": self.token_id, "mintAddress": str(self.mint) if self.mint else None},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Registered:
        launch, token = data.get("launch") or {}, data.get("token") or {}
        return cls(
            launch_id=launch.get("id", ""),
            link=launch.get("link", ""),
            token_id=token.get("id", ""),
            mint=_key(token.get("mintAddress")),
            existing=bool(data.get("existing")),
        )


@dataclass(frozen=True)
class LaunchOrder:
    """A launch as its file asked for it: the launch object as sent, the agent it launches
    for, and the names of the secrets its file gives (never their values: a run without
    them reads them from the file again). A launch with neither agent nor secrets is kept
    as the bare launch object, as journals have always kept it."""

    launch: dict[str, Any]
    agent: dict[str, Any] | None = None
    secrets: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        if self.agent is None and not self.secrets:
            return self.launch
        return {"launch": self.launch, "agent": self.agent, "secrets": list(self.secrets)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LaunchOrder:
        if "allocations" in data:  # the bare launch object
            return cls(data)
        return cls(data["launch"], data.get("agent"), tuple(data.get("secrets") or ()))


@dataclass(frozen=True)
class TransferOrder:
    """A fund or withdraw as asked: exact SOL, base58 keys resolved."""

    agent: Pubkey
    amount: Decimal
    memo: str | None
    network: str
    sender: Pubkey

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": str(self.agent),
            "amount": str(self.amount),
            "memo": self.memo,
            "network": self.network,
            "sender": str(self.sender),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TransferOrder:
        return cls(
            agent=Pubkey.from_string(data["agent"]),
            amount=Decimal(data["amount"]),
            memo=data.get("memo"),
            network=data["network"],
            sender=Pubkey.from_string(data["sender"]),
        )


@dataclass(frozen=True)
class LaunchRecord:
    """One journal entry (a launch, or a fund or withdraw) as the core reads it."""

    key: str
    kind: Kind
    state: LaunchState
    config: dict[str, Any]  # as sent on the wire: the launch, or the transfer order
    config_hash: str
    network: str
    source: str | None
    attempt: int
    mint: str | None
    genesis: str | None
    registered: Registered | None
    last_error: str | None
    error_details: list[Any] | None
    created_at: datetime
    updated_at: datetime
    lease_owner: str | None = None
    lease_expires: datetime | None = None
    lease_epoch: int = 0
    current: Attempt | None = None
    attempts: list[Attempt] = field(default_factory=list)
    result: dict[str, Any] | None = None  # what the last step answered, as the row keeps it

    @property
    def lamports_spent(self) -> int:
        """Fees and tips every attempt took from the creator."""
        return sum(a.spent.lamports for a in self.attempts if a.spent)

    @property
    def tips_paid(self) -> int:
        return sum(a.spent.tip_lamports for a in self.attempts if a.spent and a.spent.tip_paid)

    @property
    def sniped_by(self) -> tuple[str, ...]:
        """Buys of others found between the create and the first buy (the landed attempt)."""
        spent = self.current.spent if self.current else None
        return spent.sniped_by if spent else ()

    @cached_property
    def launch_order(self) -> LaunchOrder:
        """The launch, its agent and its secrets' names (a launch's record only)."""
        return LaunchOrder.from_json(self.config)

    @cached_property
    def launch(self) -> LaunchConfig:
        """The launch configuration, typed (a launch's record only)."""
        from launchops.api.models import LaunchConfig

        return LaunchConfig.model_validate(self.launch_order.launch)

    @cached_property
    def agent(self) -> AgentLink | None:
        """The agent the launch is for, if any (a launch's record only)."""
        from launchops.api.models import AgentLink

        agent = self.launch_order.agent
        return AgentLink.model_validate(agent) if agent else None

    @cached_property
    def order(self) -> TransferOrder:
        """The transfer order, typed (a fund's or withdraw's record only)."""
        return TransferOrder.from_json(self.config)

    @property
    def signatures(self) -> list[str]:
        return [str(s) for s in self.current.signatures] if self.current else []

    def as_dict(self) -> dict[str, Any]:
        """What `launchops status --json` shows: no transaction bytes, no secrets."""
        return {
            "key": self.key,
            "kind": str(self.kind),
            "state": str(self.state),
            "network": self.network,
            "source": self.source,
            "attempts": self.attempt,
            "mint": self.mint,
            "genesisAccount": self.genesis,
            "result": self.registered.to_json() if self.registered else self.result,
            "lastError": self.last_error,
            "errorDetails": self.error_details,
            "signatures": self.signatures or None,
            "lamportsSpent": self.lamports_spent,  # what left the creator (the chain's word)
            "createdAt": self.created_at.isoformat(),
            "updatedAt": self.updated_at.isoformat(),
        }


@dataclass(frozen=True)
class StateChange:
    """A launch moved to `state` (one committed journal write): what its watchers see."""

    key: str
    kind: Kind
    state: LaunchState
    network: str
    mint: str | None
    genesis: str | None
    error: str | None = None


__all__ = [
    "Attempt",
    "Created",
    "LaunchOrder",
    "LaunchRecord",
    "Registered",
    "Send",
    "StateChange",
    "TransferOrder",
]
