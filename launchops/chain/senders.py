"""The ways a signed transaction goes out beside the profile's RPC (a profile's `landing:`):
more senders every send also goes through, and a Jito block engine for bundles.

A send through another sender is one more chance to reach the leader: what it answers
changes nothing (the profile's RPC and the chain decide), so its failures are logged and
passed over. The block engine is asked through the same JSON-RPC reader as the RPC, once
per call: a bundle not taken is sent again at the next rebroadcast.
"""

from __future__ import annotations

import base64
import logging
import random
from collections.abc import Sequence
from typing import Any

from solders.pubkey import Pubkey

from launchops.chain.rpc import ChainRpc
from launchops.errors import ChainError, RpcUnavailable
from launchops.urls import joined

log = logging.getLogger(__name__)


class Senders:
    """More RPCs every send goes through, and the block engine (None when not set)."""

    def __init__(
        self, urls: Sequence[str], block_engine_url: str | None, *, timeout: float = 10.0
    ) -> None:
        self.extra = [ChainRpc(url, timeout=timeout, deadline=timeout) for url in urls]
        self.block_engine_url = block_engine_url
        self.bundles = (
            ChainRpc(joined(block_engine_url, "bundles"), timeout=timeout, deadline=timeout)
            if block_engine_url
            else None
        )
        self._tip_accounts: list[Pubkey] = []

    async def close(self) -> None:
        for rpc in (*self.extra, *([self.bundles] if self.bundles else [])):
            await rpc.close()

    async def broadcast(self, raw: bytes) -> None:
        """The same bytes through every other sender; what they answer is only logged."""
        for rpc in self.extra:
            try:
                await rpc.call("sendTransaction", [_b64(raw), _SEND], retry=False)
            except ChainError as exc:
                log.info("sender %s did not take a send: %s", rpc.shown, exc)

    # ── the block engine ────────────────────────────────────────────────────

    def _engine(self) -> ChainRpc:
        if self.bundles is None:
            raise RpcUnavailable(
                "no block engine: set landing.block_engine_url in the profile for mode: bundle"
            )
        return self.bundles

    async def tip_accounts(self) -> list[Pubkey]:
        """The block engine's 8 tip accounts (getTipAccounts), asked once."""
        if not self._tip_accounts:
            found, _ = await self._engine().call("getTipAccounts", [], _keys)
            self._tip_accounts = found
        return self._tip_accounts

    async def tip_account(self) -> Pubkey:
        """One tip account, at random (Jito's advice: less contention)."""
        return _PICK.choice(await self.tip_accounts())

    async def send_bundle(self, raws: Sequence[bytes]) -> str:
        """Send transactions as one bundle (base64); the bundle's id."""
        params: list[Any] = [[_b64(raw) for raw in raws], {"encoding": "base64"}]
        bundle_id, _ = await self._engine().call("sendBundle", params, str, retry=False)
        return bundle_id


_PICK = random.Random()  # launchops' own: the `random` module may be seeded by the program
_SEND = {"encoding": "base64", "skipPreflight": True, "maxRetries": 0}


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _keys(value: Any) -> list[Pubkey]:
    keys = [Pubkey.from_string(str(text)) for text in value]
    if not keys:
        raise ValueError("no tip accounts")
    return keys
