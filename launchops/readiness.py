"""Whether a profile is ready to launch (`launchops check`): its service answers, its RPC
serves the profile's cluster, its key loads and holds SOL, its journal opens. Each is a
finding with ok or what to fix; nothing is created, sent or written but the journal's
tables (and the sandbox profile's throwaway key, as any command makes it). The key is
named by its address only.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from solders.pubkey import Pubkey

from launchops.errors import APIStatusError, ChainError, LaunchOpsError, ServiceError
from launchops.retries import RetryPolicy
from launchops.urls import shown

if TYPE_CHECKING:
    from launchops.chain.rpc import ChainRpc
    from launchops.config.profiles import Profile
    from launchops.exposure import Exposure

ONCE = RetryPolicy(attempts=1)  # a check reports what it finds; it does not insist
SANDBOX_HINT = "start it: launchops sandbox serve"


@dataclass(frozen=True)
class Finding:
    """One check of `launchops check`: which (`service`, `cluster`, `key`, `journal`,
    `block engine`, `prefect`), whether it passed, and what was found or what to fix."""

    check: str  # service, cluster, key, journal, prefect
    ok: bool
    detail: str  # what was found, or what to fix

    def as_dict(self) -> dict[str, object]:
        return {"check": self.check, "ok": self.ok, "detail": self.detail}


async def check_service(profile: Profile) -> Finding:
    from launchops.api.client import AsyncServiceClient

    service = shown(profile.base_url)
    async with AsyncServiceClient(
        profile.base_url, network=profile.network, retry=ONCE, timeout=profile.timeout_seconds
    ) as client:
        try:
            page = await client.list_agents(page_size=1)
        except APIStatusError as exc:
            return Finding("service", False, f"{service} answered {exc}: check base_url")
        except ServiceError as exc:
            hint = "check base_url" if profile.service == "public" else SANDBOX_HINT
            return Finding("service", False, f"cannot reach {service}: {exc}; {hint}")
    return Finding("service", True, f"{service} answers ({page.total} agents listed)")


async def check_cluster(profile: Profile, rpc: ChainRpc) -> Finding:
    from launchops.config.clusters import describe, mismatch

    try:
        served = await rpc.genesis_hash()
    except ChainError as exc:
        hint = "check rpc_url" if profile.service == "public" else SANDBOX_HINT
        return Finding("cluster", False, f"cannot reach the RPC: {exc}; {hint}")
    if profile.service == "sandbox":
        return await check_same_chain(profile, rpc)
    problem = mismatch(profile, served)
    if problem is not None:
        return Finding("cluster", False, problem.replace(": nothing was sent.", ":"))
    return Finding("cluster", True, f"{rpc.shown} serves {describe(served)}")


async def check_same_chain(profile: Profile, rpc: ChainRpc) -> Finding:
    """Whether the RPC is the chain the sandbox service builds on: the node identity the
    service announces is the one the RPC answers (two sandboxes are two chains)."""
    from launchops.config.announced import sandbox_info

    service = shown(profile.base_url)
    info = await asyncio.to_thread(sandbox_info, profile.base_url, profile.timeout_seconds)
    if info is None:
        return Finding(
            "cluster",
            False,
            f"cannot tell whether {rpc.shown} is the chain of the service at "
            f"{service}: it does not answer GET /_sandbox/info; check base_url",
        )
    try:
        answer, _ = await rpc.call("getIdentity", [], retry=False)
        identity = answer.get("identity") if isinstance(answer, dict) else None
    except ChainError as exc:
        return Finding("cluster", False, f"{rpc.shown} does not say its identity: {exc}")
    if identity != info.get("identity"):
        return Finding(
            "cluster",
            False,
            f"{rpc.shown} is another chain than the service's: the sandbox at "
            f"{service} builds on {shown(str(info['rpcUrl']))}; set rpc_url "
            "(LAUNCHOPS_RPC_URL) to it, or leave it unset",
        )
    return Finding(
        "cluster",
        True,
        f"{rpc.shown} is the chain of the sandbox at {service} (same node identity)",
    )


async def check_key(profile: Profile, rpc: ChainRpc, resolver: Resolver | None) -> Finding:
    from launchops.chain.keys import KeypairPermissionWarning, load_keypair

    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", KeypairPermissionWarning)
            address: Pubkey = load_keypair(
                profile.keypair, state_dir=profile.profile_dir, resolver=resolver
            ).pubkey()
    except LaunchOpsError as exc:
        return Finding("key", False, f"{exc}: set keypair in the profile")
    for warning in seen:  # a key file others can read: a problem, not a warning, here
        if issubclass(warning.category, KeypairPermissionWarning):
            return Finding("key", False, f"{address}: {warning.message}")
    try:
        lamports = await rpc.balance(address)
    except ChainError as exc:
        return Finding("key", False, f"{address}: its balance cannot be read ({exc})")
    sol = f"{address}: {lamports / 10**9:.9f}".rstrip("0").rstrip(".") + " SOL"
    if lamports == 0 and profile.keypair != "sandbox":  # the sandbox's faucet funds its key
        return Finding("key", False, f"{sol}: fund it, it pays every launch's fees and rent")
    if lamports == 0:
        sol += " (the sandbox's faucet funds it at the first launch)"
    return Finding("key", True, sol)


async def check_journal(profile: Profile) -> Finding:
    from sqlalchemy.engine import make_url

    from launchops.journal.store import Journal

    where = make_url(profile.journal).render_as_string(hide_password=True)
    try:
        journal = await Journal.open(profile.journal)
    except LaunchOpsError as exc:  # launchops' own sentence: it names what to do
        return Finding("journal", False, str(exc))
    except Exception as exc:  # any driver's failure to connect: reported, not raised
        what = f"{where} cannot be opened ({type(exc).__name__})"
        return Finding("journal", False, f"{what}: check journal_url")
    try:
        records = await journal.all()
    except LaunchOpsError as exc:
        return Finding("journal", False, f"{where}: {exc}")
    finally:
        await journal.close()
    return Finding("journal", True, f"{where} ({len(records)} entries)")


async def check_block_engine(profile: Profile) -> Finding | None:
    """The block engine of a bundle-mode profile answers getTipAccounts (None: no bundles)."""
    from launchops.chain.senders import Senders

    if profile.landing.mode != "bundle":
        return None
    url = profile.block_engine_url
    if url is None:
        return Finding("block engine", False, "mode: bundle needs landing.block_engine_url")
    senders = Senders([], url, timeout=profile.timeout_seconds)
    try:
        accounts = await senders.tip_accounts()
    except ChainError as exc:
        return Finding(
            "block engine",
            False,
            f"{shown(url)} did not answer getTipAccounts: {exc}; check "
            "landing.block_engine_url (up to /api/v1)",
        )
    finally:
        await senders.close()
    return Finding("block engine", True, f"{shown(url)} answers: {len(accounts)} tip accounts")


def check_prefect(exposure: Exposure) -> Finding:
    """The Prefect API: fine on loopback or behind auth; to fix when it answers anyone
    from other machines, or when PREFECT_API_URL is set and it cannot be asked."""
    fine = exposure.url is None or (exposure.anonymous is not None and not exposure.open)
    detail = exposure.describe()
    if exposure.open:
        detail += (
            ": set PREFECT_SERVER_API_AUTH_STRING on the server and PREFECT_API_AUTH_STRING here"
        )
    return Finding("prefect", fine, detail)


Resolver = Callable[[str], str]


async def check_profile(
    profile: Profile, resolver: Resolver | None = None, exposure: Exposure | None = None
) -> list[Finding]:
    """Every finding, in the order a launch needs them; the Prefect API's last, when
    `exposure` says what was found about a configured one (PREFECT_API_URL)."""
    from launchops.chain.rpc import ChainRpc

    rpc = ChainRpc(profile.rpc_url, timeout=profile.timeout_seconds, retry=ONCE)
    try:
        found = [  # one after another, each made only when its turn comes
            await check_service(profile),
            await check_cluster(profile, rpc),
            await check_key(profile, rpc, resolver),
            await check_journal(profile),
        ]
        engine = await check_block_engine(profile)
        if engine is not None:
            found.append(engine)
    finally:
        await rpc.close()
    if exposure is None or exposure.url is None:  # no server to speak of: nothing to say
        return found
    return [*found, check_prefect(exposure)]


__all__ = ["Finding", "check_profile"]
