"""The embedded sandbox: whether one answers at the profile's RPC URL (a late answer is
not an absence), starting it in this process when none does, and funding the throwaway
keypair from its faucet.

A fresh machine runs a launch end to end with no network and no keys: with the sandbox
profile and nothing listening at its URL, the sandbox starts in the command's process (its
chain kept in the profile's folder, so a re-run after a crash finds it again).
"""

from __future__ import annotations

import asyncio
import errno
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
from solders.pubkey import Pubkey

import launchops.web as web
from launchops.chain.rpc import ChainRpc
from launchops.config.profiles import Profile
from launchops.errors import RpcUnavailable, SandboxPortTaken, SandboxUnavailable
from launchops.urls import shown

SANDBOX_FUNDING = 100 * 10**9
FAUCET_SECONDS = 30.0  # an airdrop not confirmed by then ends the run in one line
# What a launch's steps report as they go: (launch key, step, message).
Progress = Callable[[str, str, str], None]


def quiet(key: str, step: str, message: str) -> None:
    """Progress that reports nothing."""
    return None


def sandbox_running(rpc_url: str, timeout: float = 1.0, tries: int = 3) -> bool:
    """Whether a sandbox serves `rpc_url`: its RPC answers `getHealth` with HTTP 200 (asked
    up to `tries` times, the wait doubled each time from `timeout` seconds: a sandbox busy
    with another process's batch answers late, and is still there), or a launchops sandbox
    answers there at all (its admin surface): then none is started. Only a refused
    connection means nothing listens."""
    for attempt in range(tries):
        try:
            answer = web.post(
                rpc_url,
                json={"jsonrpc": "2.0", "id": 1, "method": "getHealth"},
                timeout=timeout * 2**attempt,
            )
        except httpx.ConnectError:
            return False  # nothing listens: start one
        except httpx.TransportError:
            continue  # something listens and has not answered yet: asked again, longer
        if answer.status_code == 200:
            return True
        time.sleep(0.2 * (attempt + 1))
    return _is_sandbox(rpc_url.rstrip("/"))


def _is_sandbox(origin: str) -> bool:
    """Whether a launchops sandbox answers at `origin` (its `/_sandbox/stats`)."""
    try:
        answer = web.get(f"{origin}/_sandbox/stats", timeout=2.0)
        return answer.status_code == 200 and "chain" in answer.json()
    except (httpx.HTTPError, ValueError):
        return False


def start_embedded_sandbox(profile: Profile, progress: Progress = quiet) -> Any:
    """With the sandbox profile and no sandbox answering at its RPC URL, the sandbox in this
    process (the caller stops it); None when there is nothing to start."""
    if not profile.embedded_sandbox or sandbox_running(profile.rpc_url):
        return None
    from launchops.sandbox.server import Sandbox, SandboxConfig

    where = urlsplit(profile.rpc_url)
    host, port = where.hostname or "127.0.0.1", where.port or 8899
    config = SandboxConfig(
        host=host,
        port=port,
        slot_ms=profile.sandbox_slot_ms,
        data_dir=profile.profile_dir / "sandbox-chain",
        seed_agents=0,
    )
    try:
        started = Sandbox(config).start()
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise SandboxUnavailable(f"cannot start the sandbox at {host}:{port}: {exc}") from None
        raise SandboxPortTaken(_port_taken(profile.rpc_url, host, port)) from None
    progress("", "sandbox", f"started the sandbox at {started.url}")
    return started


def _port_taken(rpc_url: str, host: str, port: int) -> str:
    """What listens at the sandbox's address, and what to set instead."""
    origin = f"http://{host}:{port}"
    if _is_sandbox(origin):  # another sandbox, on the port the profile's RPC URL is not
        return (
            f"a launchops sandbox is listening at {host}:{port}, but the profile's RPC URL "
            f"{shown(rpc_url)} does not reach it: set LAUNCHOPS_RPC_URL={origin} and "
            f"LAUNCHOPS_BASE_URL={origin}/v1 (or unset both)"
        )
    try:
        what = f"an HTTP server ({web.get(origin, timeout=2.0).status_code})"
    except httpx.HTTPError:
        what = "a process that does not answer HTTP"
    return (
        f"cannot start the sandbox at {host}:{port}: {what} is listening there (or at port "
        f"{port + 1}); set LAUNCHOPS_RPC_URL and LAUNCHOPS_BASE_URL to a free port, e.g. "
        f"http://127.0.0.1:8999 and http://127.0.0.1:8999/v1, or stop it"
    )


async def _balance_or_zero(rpc: ChainRpc, key: Pubkey) -> int:
    """`key`'s balance, or 0 when the read gave up (the faucet's loop reads again)."""
    try:
        return await rpc.balance(key)
    except RpcUnavailable:
        return 0


async def fund_from_faucet(
    rpc: ChainRpc, key: Pubkey, progress: Progress, within: float = FAUCET_SECONDS
) -> None:
    """Top the sandbox keypair up by airdrop when it runs low (sandbox only); an airdrop
    that fails, or is not confirmed `within` seconds, ends the run in one line (the launch
    would otherwise fail later, for want of funds, far from the cause)."""
    if await rpc.balance(key) >= SANDBOX_FUNDING // 10:
        return
    signature = await rpc.airdrop(key, SANDBOX_FUNDING)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            [landing] = await rpc.statuses([signature])
        except RpcUnavailable:  # one read given up: the next may answer, up to the deadline
            await asyncio.sleep(0.1)
            continue
        confirmed = landing is not None and landing.reached("confirmed")
        # A failure counts only once confirmed: a minority fork's node may show one at
        # `processed` that the cluster never saw (launchops.chain.fate).
        if confirmed and landing.err is not None:
            raise RpcUnavailable(
                f"the sandbox's faucet could not fund {key}: its airdrop {signature} failed "
                f"on chain ({landing.err}); restart the sandbox (launchops sandbox serve)"
            )
        # A node whose status reads lag still shows the funds: the balance is read too.
        if confirmed or await _balance_or_zero(rpc, key) >= SANDBOX_FUNDING // 10:
            progress("", "sandbox", f"funded {key} with {SANDBOX_FUNDING // 10**9} SOL by airdrop")
            return
        await asyncio.sleep(0.1)
    raise RpcUnavailable(
        f"the sandbox's faucet did not fund {key}: its airdrop {signature} was not confirmed "
        f"within {within:g} s; is the sandbox at {rpc.shown} busy or stopped? Run it again"
    )
