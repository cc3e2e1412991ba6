"""The Solana RPC as the pipeline needs it, over solana-py's AsyncClient.

Transient failures (HTTP 429 and 5xx, connection errors, timeouts) are retried here, as
`launchops.retries.RPC_CALLS` says; what the node rejects is a `TransactionRejected`
carrying its message.
Re-sending the same signed bytes is always safe: a signature lands at most once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
from solana.exceptions import SolanaRpcException
from solana.rpc.async_api import AsyncClient
from solana.rpc.commitment import Confirmed
from solana.rpc.core import RPCException
from solana.rpc.models import TxOpts
from solders.hash import Hash
from solders.pubkey import Pubkey
from solders.signature import Signature

from launchops.chain.landing import Landing
from launchops.errors import RpcUnavailable, TransactionRejected
from launchops.retries import RPC_CALLS, RetryPolicy

T = TypeVar("T")
STATUS_BATCH = 256


class ChainRpc:
    def __init__(
        self,
        url: str,
        *,
        timeout: float = 30.0,
        retry: RetryPolicy = RPC_CALLS,
        limiter: Any = None,
    ) -> None:
        self.url = url
        self.client = AsyncClient(url, commitment=Confirmed, timeout=timeout)
        self.retry = retry
        self.limiter = limiter  # an aiolimiter.AsyncLimiter shared by every launch
        self.calls = 0

    async def close(self) -> None:
        await self.client.close()

    async def _call(self, fn: Callable[[], Awaitable[T]]) -> T:
        async for attempt in self.retry.retrying():
            with attempt:
                self.calls += 1
                if self.limiter is not None:
                    await self.limiter.acquire()
                try:
                    return await fn()
                except RPCException as exc:
                    raise _rejected(exc) from None
                except SolanaRpcException as exc:
                    raise RpcUnavailable(f"RPC {self.url}: {_cause(exc)}") from None
                except (httpx.HTTPError, OSError) as exc:
                    raise RpcUnavailable(f"RPC {self.url}: {type(exc).__name__}: {exc}") from None
        raise AssertionError("unreachable")

    async def block_height(self) -> int:
        return (await self._call(lambda: self.client.get_block_height(Confirmed))).value

    async def latest_blockhash(self) -> tuple[Hash, int]:
        answer = (await self._call(lambda: self.client.get_latest_blockhash(Confirmed))).value
        return answer.blockhash, answer.last_valid_block_height

    async def send(self, raw: bytes, *, skip_preflight: bool) -> Signature:
        """Send signed bytes (the node does not queue retries: we rebroadcast ourselves)."""
        opts = TxOpts(
            skip_preflight=skip_preflight,
            skip_confirmation=True,
            max_retries=0,
            preflight_commitment=Confirmed,
        )
        return (await self._call(lambda: self.client.send_raw_transaction(raw, opts=opts))).value

    async def statuses(self, signatures: list[Signature]) -> list[Landing | None]:
        """Where each signature stands, in batches of 256, searching all history."""
        found: list[Landing | None] = []
        for start in range(0, len(signatures), STATUS_BATCH):
            batch = signatures[start : start + STATUS_BATCH]
            answer = await self._call(
                lambda b=batch: self.client.get_signature_statuses(
                    b, search_transaction_history=True
                )
            )
            for status in answer.value:
                if status is None or status.confirmation_status is None:
                    found.append(None)
                    continue
                level = str(status.confirmation_status).rsplit(".", 1)[-1].lower()
                found.append(
                    Landing(status.slot, level, None if status.err is None else str(status.err))
                )
        return found

    async def simulate(self, raw: bytes) -> tuple[str | None, list[str]]:
        from solders.transaction import VersionedTransaction

        tx = VersionedTransaction.from_bytes(raw)
        answer = (
            await self._call(lambda: self.client.simulate_transaction(tx, sig_verify=True))
        ).value
        return (None if answer.err is None else str(answer.err)), list(answer.logs or [])

    async def genesis_hash(self) -> str:
        """The genesis hash of the cluster this RPC serves (which network it is)."""
        return str((await self._call(self.client.get_genesis_hash)).value)

    async def balance(self, key: Pubkey) -> int:
        return (await self._call(lambda: self.client.get_balance(key, Confirmed))).value

    async def airdrop(self, key: Pubkey, lamports: int) -> Signature:
        return (await self._call(lambda: self.client.request_airdrop(key, lamports))).value

    async def lookup_tables(self, keys: list[Pubkey]) -> dict[Pubkey, list[Pubkey]]:
        """The addresses of each address lookup table found among `keys` (absent: not one)."""
        from solders.address_lookup_table_account import ID, AddressLookupTable

        if not keys:
            return {}
        accounts = (
            await self._call(lambda: self.client.get_multiple_accounts(keys, Confirmed))
        ).value
        return {
            key: list(AddressLookupTable.deserialize(bytes(account.data)).addresses)
            for key, account in zip(keys, accounts, strict=True)
            if account is not None and account.owner == ID
        }


def _rejected(exc: RPCException) -> TransactionRejected:
    detail = exc.args[0] if exc.args else exc
    message = getattr(detail, "message", None) or str(detail)
    data = getattr(detail, "data", None)
    err = getattr(data, "err", None)
    return TransactionRejected(str(message), None if err is None else str(err))


def _cause(exc: SolanaRpcException) -> str:
    cause = exc.__cause__
    response = getattr(cause, "response", None)  # solana-py raises httpx2's errors
    if response is not None and getattr(response, "status_code", None):
        return f"HTTP {response.status_code}"
    return f"{type(cause).__name__}: {cause}" if cause else str(exc)
