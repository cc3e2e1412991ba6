"""What a sandbox says about itself at `GET /_sandbox/info`: the RPC URL of its chain and
that chain's node identity (the one its RPC answers to `getIdentity`). A profile whose
RPC follows its sandbox service takes the announced URL; `check` compares identities."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

import launchops.web as web
from launchops.config.profiles import BUILT_IN, sandbox_root

if TYPE_CHECKING:
    from launchops.config.profiles import Profile


def sandbox_info(base_url: str, timeout: float = 2.0) -> dict[str, Any] | None:
    """The sandbox's announcement; None when what serves `base_url` says nothing of it."""
    try:
        answer = web.get(f"{sandbox_root(base_url)}/_sandbox/info", timeout=timeout)
        found = answer.json() if answer.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("rpcUrl"), str) else None


def announced_rpc(profile: Profile) -> str | None:
    """The RPC URL the sandbox at the profile's base URL announces, when the profile's RPC
    follows its service and the two differ; else None (nothing to change)."""
    if not profile.rpc_from_service or profile.base_url == BUILT_IN.get(profile.name, {}).get(
        "base_url"
    ):  # the built-in sandbox serves both at the one address the profile names
        return None
    info = sandbox_info(profile.base_url)
    if info is None or info["rpcUrl"].rstrip("/") == profile.rpc_url.rstrip("/"):
        return None
    return str(info["rpcUrl"])


__all__ = ["announced_rpc", "sandbox_info"]
