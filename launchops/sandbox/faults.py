"""Faults the sandbox injects on demand, and the counters it keeps of what it served."""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from launchops.sandbox import api_faults, rpc_faults
from launchops.sandbox.compromise import Attack
from launchops.sandbox.formats import TxFormat


class Faults(BaseModel):
    """The sandbox's settings: faults to inject, and how it behaves where the public
    service differs from the spec. Settable at start (`--fault name=value`) and while
    running (PUT /_sandbox/faults)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    drop_rate: float = Field(
        0.0, ge=0, le=1, description="fraction of sends dropped (a rebroadcast may land)"
    )
    expire_rate: float = Field(
        0.0,
        ge=0,
        le=1,
        description="fraction of creates, fund/withdraw builds, claims and agent mints given a "
        "blockhash that dies at the next slot, so their transactions expire unlanded",
    )
    expire_next: int = Field(
        0, ge=0, le=1_000_000, description="the next N creates, builds, claims and mints expire so"
    )
    delay_slots: int = Field(0, ge=0, le=1000, description="extra slots before landing")
    congestion: float = Field(
        0.0,
        ge=0,
        le=1,
        description="share of plain sends that do not reach the leader in a slot, as on a busy "
        "cluster (each rebroadcast, through any sender, is a new chance; bundles are not "
        "affected)",
    )
    tip_floor_lamports: int = Field(
        0,
        ge=0,
        le=10**12,
        description="the block engine passes over bundles tipping less than this (they never "
        "land); 1000 lamports is Jito's minimum whatever this says",
    )
    sniper: float = Field(
        0.0,
        ge=0,
        le=1000,
        description="SOL a buyer the sandbox funds spends on every new bonding curve, in the "
        "slot after the curve appears on chain (0: off; true: 1 SOL)",
    )
    fail_tail_next: int = Field(
        0,
        ge=0,
        le=1_000_000,
        description="the next N launches created land their first transaction and fail the "
        "later ones on chain (custom program error): what leaves a launch needing a person",
    )
    compromised_next: list[Attack] = Field(
        [],
        max_length=1000,
        description="the next creates answered as a compromised service answers, one attack "
        "each in order (launchops.sandbox.compromise: transfer, extra_transaction, "
        "set_authority, approve, unknown_program, extra_signer, fee_payer, genesis_args, "
        "expiry)",
    )
    rpc_error_rate: float = Field(0.0, ge=0, le=1, description="fraction of RPC calls refused")
    rpc_faults: dict[str, float] = Field(
        default_factory=dict,
        description="answer this fraction of RPC calls as a failing node does, by fault name, "
        "for every method or one: {'behind': 0.15, 'blockhash_not_found@sendTransaction': "
        "0.1}; names: " + ", ".join(sorted(rpc_faults.NAMES)),
    )
    rpc_fault_next: dict[str, int] = Field(
        default_factory=dict,
        description="answer the next N RPC calls with a named fault (same keys as rpc_faults)",
    )
    rpc_lag_slots: dict[str, int] = Field(
        default_factory=dict,
        description="serve a method (or '*': every read) from a node N slots behind: its "
        "context slot, block height and statuses are N slots old, e.g. "
        "{'getSignatureStatuses': 200}",
    )
    rpc_lag_seconds: float = Field(
        0.0,
        ge=0,
        le=3600,
        description="lag only for this long after each sendTransaction (0: always)",
    )
    pubsub_hang: float = Field(
        0.0,
        ge=0,
        le=1,
        description="fraction of PubSub connections (true: every one) taken and never "
        "answered: the WebSocket handshake never completes, held until the client goes",
    )
    pubsub_hang_next: int = Field(
        0, ge=0, le=1_000_000, description="the next N PubSub connections hang so"
    )
    api_error_rate: float = Field(0.0, ge=0, le=1, description="fraction of API calls refused")
    api_faults: dict[str, float] = Field(
        default_factory=dict,
        description="answer this fraction of /v1 calls as the service's failing front does, "
        "by fault name, for every endpoint or one: {'cdn_challenge': 0.1, "
        "'lost_answer@POST /v1/launches/create': 0.2}; names: "
        + ", ".join(sorted(api_faults.NAMES)),
    )
    api_fault_next: dict[str, int] = Field(
        default_factory=dict,
        description="answer the next N /v1 calls with a named fault (same keys as api_faults)",
    )
    error_status: Literal[429, 503, "mixed"] = "mixed"
    latency_ms: int = Field(0, ge=0, le=60_000, description="added to every answer")
    fail_status: int = Field(500, ge=400, le=599, description="the status fail_next answers")
    fail_next: dict[str, int] = Field(
        default_factory=dict,
        description="answer the next N calls of an endpoint or RPC method with 500, "
        "e.g. {'POST /v1/launches/register': 2, 'sendTransaction': 1}",
    )
    register_unindexed_slots: int = Field(
        0,
        ge=0,
        le=1_000_000,
        description="register answers 400 'Genesis account not found on-chain' until N slots "
        "after a launch's last transaction landed, as the public service does before it "
        "has indexed a launch",
    )
    cluster: Literal["mainnet-beta", "devnet", "testnet"] = Field(
        "mainnet-beta",
        description="the cluster whose genesis hash getGenesisHash answers (the sandbox "
        "serves every network; this is what a network guard sees)",
    )
    tx_format: TxFormat = Field(
        "v0",
        description="the format of the transactions create, fund and withdraw build: legacy, "
        "v0, v0-alt (v0 with an address lookup table) or v1",
    )

    @field_validator("rpc_faults", "rpc_fault_next")
    @classmethod
    def _known_rpc_faults(cls, value: dict[str, Any]) -> dict[str, Any]:
        _in_range(value)
        return rpc_faults.check_names(value)

    @field_validator("api_faults", "api_fault_next")
    @classmethod
    def _known_api_faults(cls, value: dict[str, Any]) -> dict[str, Any]:
        _in_range(value)
        return api_faults.check_names(value)

    @field_validator("pubsub_hang", "sniper", mode="before")
    @classmethod
    def _hang_as_rate(cls, value: Any) -> Any:
        """true / false (or yes, on, no, off) as 1 and 0."""
        if isinstance(value, str) and value.strip().lower() in SWITCH_WORDS:
            return SWITCH_WORDS[value.strip().lower()]
        return float(value) if isinstance(value, bool) else value

    @field_validator("rpc_lag_slots")
    @classmethod
    def _lag_in_range(cls, value: dict[str, int]) -> dict[str, int]:
        if any(not 0 <= slots <= 100_000 for slots in value.values()):
            raise ValueError("a lag is 0 to 100000 slots")
        return value


SWITCH_WORDS = {"true": 1.0, "yes": 1.0, "on": 1.0, "false": 0.0, "no": 0.0, "off": 0.0}


def _in_range(value: dict[str, Any]) -> None:
    """Rates (floats) in 0..1, counts (ints) in 0..1000000."""
    for key, amount in value.items():
        if not 0 <= amount <= (1 if isinstance(amount, float) else 1_000_000):
            raise ValueError(f"{key}: {amount} is out of range")


class FaultInjector:
    """Draws the faults to inject, from `faults`, with one seedable rng (a seeded sandbox
    replays the same faults for the same calls); counts given as `*_next` are used up."""

    def __init__(self, faults: Faults | None = None, seed: int | None = None) -> None:
        self.faults = faults or Faults()
        self.rng = random.Random(seed)

    def refusal(self, name: str, rate: float) -> int | None:
        """The status to refuse this call with, or None to serve it."""
        remaining = self.faults.fail_next.get(name, 0)
        if remaining > 0:
            left = dict(self.faults.fail_next)
            left[name] = remaining - 1
            self.faults.fail_next = {k: v for k, v in left.items() if v > 0}
            return self.faults.fail_status
        if rate > 0 and self.rng.random() < rate:
            status = self.faults.error_status
            if status == "mixed":
                return self.rng.choice((429, 503))
            return int(status)
        return None

    def rpc_fault(self, method: str) -> str | None:
        """The named RPC fault to answer `method` with, or None to serve it."""
        name, left = rpc_faults.pick(
            method, self.faults.rpc_faults, self.faults.rpc_fault_next, self.rng.random
        )
        if left != self.faults.rpc_fault_next:
            self.faults.rpc_fault_next = left
        return name

    def api_fault(self, endpoint: str) -> str | None:
        """The named API fault to answer `endpoint` (`METHOD /v1/path`) with, or None."""
        name, left = rpc_faults.pick(
            endpoint, self.faults.api_faults, self.faults.api_fault_next, self.rng.random
        )
        if left != self.faults.api_fault_next:
            self.faults.api_fault_next = left
        return name

    def pubsub_hang(self) -> bool:
        """Whether this PubSub connection hangs before its handshake (pubsub_hang*)."""
        if self.faults.pubsub_hang_next > 0:
            self.faults.pubsub_hang_next -= 1
            return True
        rate = self.faults.pubsub_hang
        return rate > 0 and self.rng.random() < rate


class Stats:
    """Calls served per RPC method and per API endpoint, what faults did, and HTTP requests
    a second (API and JSON-RPC apart), so a shared rate limit can be checked from here."""

    KEPT_SECONDS = 900

    def __init__(self) -> None:
        self.rpc: Counter[str] = Counter()
        self.api: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.per_second: dict[str, Counter[int]] = {"api": Counter(), "rpc": Counter()}

    def arrived(self, kind: str) -> None:
        """One HTTP request of `kind` (api or rpc) arrived now."""
        second = int(time.time())
        counts = self.per_second[kind]
        counts[second] += 1
        if len(counts) > self.KEPT_SECONDS:
            for old in sorted(counts)[: len(counts) - self.KEPT_SECONDS]:
                del counts[old]

    def reset(self) -> None:
        self.rpc.clear()
        self.api.clear()
        self.refused.clear()
        for counts in self.per_second.values():
            counts.clear()

    def snapshot(self) -> dict[str, Any]:
        return {
            "rpc": dict(self.rpc),
            "api": dict(self.api),
            "refused": dict(self.refused),
            "rpcTotal": sum(self.rpc.values()),
            "apiTotal": sum(self.api.values()),
            "perSecond": {
                kind: {str(second): n for second, n in sorted(counts.items())}
                for kind, counts in self.per_second.items()
            },
            "peakPerSecond": {
                kind: max(counts.values(), default=0) for kind, counts in self.per_second.items()
            },
        }
