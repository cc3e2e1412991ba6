"""Where each registered launch stands (GET /launches/{genesisAddress}, GET /launches),
from the sandbox's clock and chain: `upcoming` before its start time, `live`, `ended` at
its end time; a bonding curve (no end time) is `graduated` once its Raydium CPMM bucket on
chain holds a pool (the crank's `graduateToRaydiumCpmmV2` landed), with `graduatedAt`
the block time of that graduation."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from launchops.api.after import LaunchDetail
from launchops.sandbox import launches
from launchops.sandbox.rewards import Rewards
from launchops.sandbox.store import SandboxStore


class LaunchStatuses:
    def __init__(self, store: SandboxStore, rewards: Rewards) -> None:
        self.store = store
        self.rewards = rewards

    def detail(self, genesis: str, network: str) -> LaunchDetail | None:
        """The launch registered with this genesis account on `network`, if any."""
        registration = self.store.get("registration", genesis)
        created = self.store.get("create", genesis)
        if registration is None or created is None or created["network"] != network:
            return None
        token = self.store.get("token", registration["token"])
        if token is None:
            return None
        listing = next((x for x in token["launches"] if x["genesisAddress"] == genesis), None)
        if listing is None:
            return None
        state = {**listing, **self._state(genesis, listing)}
        data = {key: token[key] for key in ("baseToken", "website", "socials")}
        return LaunchDetail.model_validate({"launch": state, **data})

    def all(
        self, network: str, status: str | None = None, spotlight: bool | None = None
    ) -> list[LaunchDetail]:
        found = []
        for created in self.store.all("create"):
            detail = self.detail(created["genesis"], network)
            if detail is None:
                continue
            if status is not None and detail.launch.status != status:
                continue
            if spotlight is not None and detail.launch.spotlight != spotlight:
                continue
            found.append(detail)
        return found

    def _state(self, genesis: str, listing: dict[str, Any]) -> dict[str, Any]:
        now = datetime.now(UTC)
        curve = self.rewards.curve(genesis)
        if curve is None:
            return {"status": launches.status_now(listing, now)}
        activity = self.store.get("curve", genesis) or {}
        changes: dict[str, Any] = {"status": launches.status_now(listing, now)}
        if activity.get("lastActivityAt"):
            changes["lastActivityAt"] = activity["lastActivityAt"]
        if self.rewards.graduated(curve):
            changes["status"] = "graduated"
            changes["graduatedAt"] = activity.get("graduatedAt") or listing["lastActivityAt"]
        return changes
