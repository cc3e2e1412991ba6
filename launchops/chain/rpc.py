"""The Solana RPC as the pipeline needs it: JSON-RPC over httpx, every answer read by
`launchops.chain.answers` (one map of what a node answers onto the error tree).

Transient failures (HTTP 429 and 5xx, connection errors, timeouts, a lagging or unhealthy
node, a malformed body, an answer to another request) are retried here, as
`launchops.retries.RPC_CALLS` says, within one deadline a call (`deadline`): a call that
got no usable answer for all of it makes the RPC gone for this run (`RpcGone`; every
later call fails at once). What the node refuses is a `TransactionRejected` (a
transaction) or an `RpcRefused` (the call). Each request carries an id of its own, and
an answer carrying another is never taken.
Reads that matter for deciding a transaction's fate also return the slot the node
answered at (its `context`), so that a lagging node's stale answer is never taken for a
proof (`launchops.chain.fate`).
Re-sending the same signed bytes is always safe: a signature lands at most once.
"""

from __future__ import annotations

import base64
import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import httpx
from solders.hash import Hash
from solders.pubkey import Pubkey
from solders.signature import Signature
from solders.transaction import VersionedTransaction

from launchops.chain.answers import (
    describe_err,
    explain_rejection,
    malformed,
    read_answer,
)
from launchops.chain.landing import LEVELS, Landing
from launchops.errors import RpcGone, RpcUnavailable, TransactionRejected
from launchops.retries import RPC_CALLS, Outage, RetryPolicy
from launchops.urls import scrubbed, shown
from launchops.web import verify_for

T = TypeVar("T")
STATUS_BATCH = 256
ACCOUNTS_BATCH = 100
CONFIRMED = {"commitment": "confirmed"}
NOTICE_AFTER = 3.0  # seconds without a usable answer before the wait is told (`notify`)


@dataclass(frozen=True)
class Epoch:
    """The slot and the block height one node answered together (getEpochInfo)."""

    slot: int
    block_height: int


@dataclass(frozen=True)
class StatusView:
    """Where signatures stand, and the oldest slot the node(s) answered at."""

    landings: list[Landing | None]
    context_slot: int | None


class ChainRpc:
    """The calls the pipeline makes to a Solana RPC node, each retried as `retry` says within
    `deadline` seconds (each attempt within `timeout`), and shared by every launch in flight
    (`limiter`: an aiolimiter.AsyncLimiter). `notify(message)` hears a wait for an answer
    that lasts (a live display shows it)."""

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy = RPC_CALLS,
        limiter: Any = None,
        deadline: float = 30.0,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.url = url
        self.shown = shown(url)  # what errors and logs say of it: no key
        self.timeout = timeout
        self.retry = retry
        self.limiter = limiter
        self.deadline = deadline
        self.notify = notify
        self.calls = 0
        self.highest_slot = 0  # the highest context slot any answer carried
        self.outage = Outage(self._gone, deadline)
        self._http = httpx.AsyncClient(
            timeout=timeout,
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
            headers={"Content-Type": "application/json"},
            verify=verify_for(url),  # no CA bundle to load for a local node
        )
        # Ids no other client of the node is likely to use too: an answer is taken only
        # with the id of its own request. Drawn from the OS, not the `random` module,
        # which a program may have seeded (Hypothesis does, for every example): two
        # processes seeded alike would number their requests alike.
        self._ids = itertools.count(random.SystemRandom().randrange(1, 2**40))
        self._client: Any = None

    def _gone(self, reason: str) -> RpcGone:
        return RpcGone(
            f"RPC {self.shown}: {reason}; it is down, unreachable or refusing every call. "
            "Check it (or set rpc_url to another), then run the same command again: every "
            "launch continues where it stopped"
        )

    @property
    def client(self) -> Any:
        """solana-py's AsyncClient on the same URL, for reads tools and tests make."""
        if self._client is None:
            from solana.rpc.async_api import AsyncClient
            from solana.rpc.commitment import Confirmed

            self._client = AsyncClient(self.url, commitment=Confirmed, timeout=self.timeout)
        return self._client

    async def close(self) -> None:
        await self._http.aclose()
        if self._client is not None:
            await self._client.close()

    # ── one call ────────────────────────────────────────────────────────────

    async def call(
        self,
        method: str,
        params: list[Any],
        shape: Callable[[Any], T] = lambda value: value,
        *,
        retry: bool = True,
    ) -> tuple[T, int | None]:
        """One JSON-RPC call, its result read by `shape` (a result of the wrong shape is a
        malformed answer), and the slot the node answered at; asked again while it fails
        transiently, within the deadline (unless `retry` is False: the caller decides
        what that means)."""
        self.outage.check()
        if not retry:
            return await self._once(method, params, shape, self.timeout)
        started = time.monotonic()
        try:
            async for attempt in self.retry.within(self.deadline).retrying():
                with attempt:
                    waited = time.monotonic() - started
                    if waited >= NOTICE_AFTER and self.notify is not None:
                        self.notify(
                            f"no usable answer from the RPC for {waited:.0f} s ({method}); "
                            f"asking again until {self.deadline:.0f} s"
                        )
                    timeout = min(self.timeout, max(self.deadline - waited, 0.5))
                    return await self._once(method, params, shape, timeout)
        except RpcUnavailable as exc:
            if not exc.retried:
                raise
            raise self.outage.exhausted(exc, f"RPC {self.shown}: ") from None
        raise AssertionError("unreachable")

    async def _once(
        self, method: str, params: list[Any], shape: Callable[[Any], T], timeout: float
    ) -> tuple[T, int | None]:
        self.calls += 1
        if self.limiter is not None:
            await self.limiter.acquire()
        request_id = next(self._ids)
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        try:
            response = await self._http.post(self.url, json=body, timeout=timeout)
        except httpx.TimeoutException as exc:
            raise RpcUnavailable(
                f"RPC {self.shown}: no answer within {timeout:g} s ({type(exc).__name__})"
            ) from None
        except (httpx.HTTPError, OSError) as exc:
            described = scrubbed(_described(exc), self.url)
            raise RpcUnavailable(f"RPC {self.shown}: {described}") from None
        try:
            answer = read_answer(self.shown, response, request_id, method)
        except RpcUnavailable:
            raise
        except Exception:
            self.outage.answered()  # a refusal is an answer: the node is there
            raise
        self.outage.answered()
        if answer.context_slot is not None and answer.context_slot > self.highest_slot:
            self.highest_slot = answer.context_slot
        return self._shaped(shape, answer.value), answer.context_slot

    def _shaped(self, convert: Callable[[Any], T], value: Any) -> T:
        """`convert(value)`; a value of the wrong shape is a malformed (transient) answer,
        also where solders panics on it."""
        try:
            return convert(value)
        except Exception as exc:
            raise malformed(self.shown, f"{type(exc).__name__}: {exc}"[:200]) from None
        except BaseException as exc:
            if type(exc).__name__ != "PanicException":
                raise
            raise malformed(self.shown, "solders could not read it") from None

    # ── the chain's progress ────────────────────────────────────────────────

    async def block_height(self) -> int:
        return (await self.call("getBlockHeight", [CONFIRMED], _count))[0]

    async def epoch(self, *, min_context_slot: int | None = None) -> Epoch:
        """The slot and block height together, from one node's one answer; with
        `min_context_slot`, from a node at least that far along (one behind answers
        -32016: asked once, raised)."""
        if min_context_slot is None:
            return (await self.call("getEpochInfo", [CONFIRMED], _epoch))[0]
        config = {**CONFIRMED, "minContextSlot": min_context_slot}
        return (await self.call("getEpochInfo", [config], _epoch, retry=False))[0]

    async def blockhash_valid(self, blockhash: Hash) -> tuple[bool, int | None]:
        """Whether the node calls `blockhash` valid (at `confirmed`), and its view's slot."""
        return await self.call("isBlockhashValid", [str(blockhash), CONFIRMED], _flag)

    async def latest_blockhash(self) -> tuple[Hash, int]:
        return (await self.call("getLatestBlockhash", [CONFIRMED], _blockhash))[0]

    async def genesis_hash(self) -> str:
        """The genesis hash of the cluster this RPC serves (which network it is)."""
        return (await self.call("getGenesisHash", [], lambda v: str(Hash.from_string(v))))[0]

    # ── transactions ────────────────────────────────────────────────────────

    async def send(self, raw: bytes, *, skip_preflight: bool) -> Signature:
        """Send signed bytes (the node does not queue retries: we rebroadcast ourselves)."""
        config = {
            "encoding": "base64",
            "skipPreflight": skip_preflight,
            "maxRetries": 0,
            "preflightCommitment": "confirmed",
        }
        try:
            return (await self.call("sendTransaction", [_b64(raw), config], _signature))[0]
        except TransactionRejected as exc:
            raise explain_rejection(exc, _account_keys(raw)) from None

    async def statuses(self, signatures: Sequence[Signature]) -> list[Landing | None]:
        """Where each signature stands, in batches of 256, searching all history."""
        return (await self.statuses_at(signatures)).landings

    async def statuses_at(self, signatures: Sequence[Signature]) -> StatusView:
        """Where each signature stands, and the oldest slot a batch was answered at."""
        found: list[Landing | None] = []
        slots: list[int] = []
        for start in range(0, len(signatures), STATUS_BATCH):
            batch = [str(s) for s in signatures[start : start + STATUS_BATCH]]
            landings, slot = await self.call(
                "getSignatureStatuses",
                [batch, {"searchTransactionHistory": True}],
                partial(_landings, length=len(batch)),
            )
            found.extend(landings)
            if slot is not None:
                slots.append(slot)
        return StatusView(found, min(slots) if slots else None)

    async def simulate(self, raw: bytes) -> tuple[str | None, list[str]]:
        config = {"encoding": "base64", "sigVerify": True, "commitment": "confirmed"}
        return (await self.call("simulateTransaction", [_b64(raw), config], _simulation))[0]

    # ── accounts ────────────────────────────────────────────────────────────

    async def existing(
        self,
        keys: Sequence[Pubkey],
        *,
        min_context_slot: int | None = None,
        commitment: str = "confirmed",
    ) -> tuple[list[bool], int | None]:
        """Which of `keys` hold an account (at `commitment`), and the slot the node answered
        at. With `min_context_slot`, a node behind that slot answers -32016: asked once,
        raised."""
        config: dict[str, Any] = {
            "encoding": "base64",
            "commitment": commitment,
            "dataSlice": {"offset": 0, "length": 0},  # whether it exists, not what it holds
        }
        if min_context_slot is not None:
            config["minContextSlot"] = min_context_slot
        found: list[bool] = []
        slots: list[int] = []
        for start in range(0, len(keys), ACCOUNTS_BATCH):
            batch = [str(k) for k in keys[start : start + ACCOUNTS_BATCH]]
            present, slot = await self.call(
                "getMultipleAccounts",
                [batch, config],
                partial(_present, length=len(batch)),
                retry=min_context_slot is None,
            )
            found.extend(present)
            if slot is not None:
                slots.append(slot)
        return found, min(slots) if slots else None

    async def ledger_start(self) -> int:
        """The lowest slot the node still has transactions of (`minimumLedgerSlot`): a node
        without history answers "not found" for anything older."""
        return (await self.call("minimumLedgerSlot", [], _count))[0]

    async def balance(self, key: Pubkey) -> int:
        return (await self.call("getBalance", [str(key), CONFIRMED], _count))[0]

    async def airdrop(self, key: Pubkey, lamports: int) -> Signature:
        return (await self.call("requestAirdrop", [str(key), lamports], _signature))[0]

    async def lookup_tables(self, keys: list[Pubkey]) -> dict[Pubkey, list[Pubkey]]:
        """The addresses of each address lookup table found among `keys` (absent: not one)."""
        from solders.address_lookup_table_account import ID, AddressLookupTable

        if not keys:
            return {}
        config = {"encoding": "base64", "commitment": "confirmed"}

        def tables(value: Any) -> dict[Pubkey, list[Pubkey]]:
            found = {}
            for key, account in zip(keys, _list(value, len(keys)), strict=True):
                if account is not None and Pubkey.from_string(account["owner"]) == ID:
                    data = base64.b64decode(account["data"][0], validate=True)
                    found[key] = list(AddressLookupTable.deserialize(data).addresses)
            return found

        return (await self.call("getMultipleAccounts", [[str(k) for k in keys], config], tables))[0]


# ── shapes ──────────────────────────────────────────────────────────────────


def _described(exc: BaseException) -> str:
    """A transport failure in words: its kind, and its text when it has one."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else f"{type(exc).__name__} (no answer)"


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise ValueError(f"expected a slot, height or amount, got {str(value)[:40]!r}")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {str(value)[:40]!r}")
    return value


def _epoch(value: Any) -> Epoch:
    return Epoch(_count(value["absoluteSlot"]), _count(value["blockHeight"]))


def _blockhash(value: Any) -> tuple[Hash, int]:
    return Hash.from_string(value["blockhash"]), _count(value["lastValidBlockHeight"])


def _signature(value: Any) -> Signature:
    if not isinstance(value, str):
        raise ValueError("expected a signature")
    return Signature.from_string(value)


def _list(value: Any, length: int) -> list[Any]:
    if not isinstance(value, list) or len(value) != length:
        raise ValueError(f"expected a list of {length}")
    return value


def _landings(value: Any, length: int) -> list[Landing | None]:
    found: list[Landing | None] = []
    for status in _list(value, length):
        if status is None or status.get("confirmationStatus") is None:
            found.append(None)
            continue
        level = status["confirmationStatus"]
        if level not in LEVELS:
            raise ValueError(f"unknown confirmation status {str(level)[:20]!r}")
        err = status.get("err")
        found.append(
            Landing(_count(status["slot"]), level, None if err is None else describe_err(err))
        )
    return found


def _present(value: Any, length: int) -> list[bool]:
    return [account is not None for account in _list(value, length)]


def _simulation(value: Any) -> tuple[str | None, list[str]]:
    err = value["err"]
    logs = value.get("logs") or []
    return (None if err is None else describe_err(err)), [str(line) for line in logs]


def _account_keys(raw: bytes) -> list[str]:
    try:
        return [str(k) for k in VersionedTransaction.from_bytes(raw).message.account_keys]
    except Exception:
        return []


__all__ = ["ChainRpc", "Epoch", "StatusView"]
