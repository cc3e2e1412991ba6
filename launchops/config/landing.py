"""A profile's `landing:` section: how a launch's transactions reach the leader on a busy
cluster.

- `senders`: more RPC URLs (a staked or SWQoS endpoint) every send and rebroadcast also
  goes through, beside the profile's RPC (plain mode).
- `mode: bundle`: the create's transactions, in order, plus a tip transaction the creator
  signs on the same blockhash, sent as one Jito bundle to `block_engine_url` (and again at
  each rebroadcast) until it lands or the blockhash dies. The tip starts at `tip_lamports`
  and doubles at each new create, up to `max_tip_lamports`. A create of more than
  MAX_BUNDLED transactions does not fit: `too_long` says whether it is sent plainly or
  refused. In bundle mode the create's transactions never go out alone.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from launchops.urls import joined

MAX_BUNDLED = 4  # a bundle holds 5 transactions: the create's and the tip
MIN_TIP = 1000  # lamports, Jito's minimum


class Landing(BaseModel):
    """A profile's `landing:` section, as the module's text describes it."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["plain", "bundle"] = "plain"
    senders: list[str] = Field(
        default_factory=list, description="more RPC URLs every send also goes through"
    )
    block_engine_url: str | None = Field(
        None,
        description="Jito's block engine, up to /api/v1 (e.g. "
        "https://mainnet.block-engine.jito.wtf/api/v1); a sandbox profile defaults to the "
        "sandbox's",
    )
    tip_lamports: int = Field(10_000, ge=MIN_TIP, description="the first create's tip")
    max_tip_lamports: int = Field(
        100_000, ge=MIN_TIP, description="the tip doubles at each new create up to this"
    )
    too_long: Literal["plain", "refuse"] = Field(
        "plain",
        description=f"a create of more than {MAX_BUNDLED} transactions: sent plainly, or refused",
    )

    @model_validator(mode="after")
    def _tips_in_order(self) -> Landing:
        if self.max_tip_lamports < self.tip_lamports:
            raise ValueError(
                f"max_tip_lamports ({self.max_tip_lamports}) is below tip_lamports "
                f"({self.tip_lamports}): raise it or lower tip_lamports"
            )
        return self

    def tip_for(self, attempt: int) -> int:
        """The tip of create `attempt` (1, 2, ...): doubling, at most the max."""
        return min(self.max_tip_lamports, self.tip_lamports * 2 ** max(0, attempt - 1))

    def describe(self, transactions: int) -> str:
        """What a launch of `transactions` would spend beyond fees (what --dry-run says)."""
        fees = f"{transactions} transactions"
        through = f" through {1 + len(self.senders)} senders" if self.senders else ""
        if self.mode == "plain":
            return f"{fees} sent plainly{through}; no tip"
        if transactions > MAX_BUNDLED:
            if self.too_long == "refuse":
                return f"{fees}: more than a bundle holds ({MAX_BUNDLED}); it would be refused"
            return f"{fees}: more than a bundle holds ({MAX_BUNDLED}); sent plainly, no tip"
        return (
            f"{fees} and a tip as one bundle: a tip of {self.tip_for(1)} lamports, paid only "
            f"if it lands; doubled at each create again, up to {self.max_tip_lamports}"
        )

    def engine_url(self, rpc_url: str, sandbox: bool) -> str | None:
        """The block engine's URL (up to /api/v1): the one given, else a sandbox's own."""
        if self.block_engine_url:
            return self.block_engine_url.rstrip("/")
        return joined(rpc_url, "api/v1") if sandbox else None
