"""The network guard: before anything is created or sent with a profile that targets the
public service, its RPC must serve the profile's network (mainnet-beta for
`solana-mainnet`, devnet for `solana-devnet`), as the RPC's genesis hash says. A profile
may name another genesis hash on purpose (`genesis_hash`: a local validator).

A devnet profile pointed at a mainnet RPC would otherwise build a devnet launch and pay
for it with mainnet SOL; the public service's own CLI asks `getGenesisHash` the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from launchops.api.programs import GENESIS_HASHES, NETWORK_CLUSTERS, cluster_of
from launchops.errors import WrongCluster
from launchops.urls import shown

if TYPE_CHECKING:
    from launchops.chain.rpc import ChainRpc
    from launchops.config.profiles import Profile


def expected_genesis(profile: Profile) -> str:
    """The genesis hash the profile's RPC must answer."""
    return profile.genesis_hash or GENESIS_HASHES[NETWORK_CLUSTERS[str(profile.network)]]


def describe(genesis_hash: str) -> str:
    """`devnet (EtWTRA…)`, or the hash alone for a cluster without a name."""
    name = cluster_of(genesis_hash)
    return f"{name} (genesis {genesis_hash[:6]}…)" if name else f"genesis {genesis_hash}"


def mismatch(profile: Profile, served: str) -> str | None:
    """The one-line refusal when the RPC serves another cluster than the profile wants."""
    wanted = expected_genesis(profile)
    if served == wanted:
        return None
    target = "the profile's genesis_hash" if profile.genesis_hash else str(profile.network)
    return (
        f"profile {profile.name} sends to {target}, {describe(wanted)}, but its RPC "
        f"{shown(profile.rpc_url)} serves {describe(served)}: nothing was sent. Point rpc_url at "
        f"a {NETWORK_CLUSTERS[str(profile.network)]} RPC, or set genesis_hash: {served} in "
        "the profile to use that cluster on purpose"
    )


async def guard_network(rpc: ChainRpc, profile: Profile) -> None:
    """Refuse (WrongCluster) a public-service profile whose RPC serves another cluster."""
    if profile.service != "public":
        return
    problem = mismatch(profile, await rpc.genesis_hash())
    if problem is not None:
        raise WrongCluster(problem)


__all__ = ["describe", "expected_genesis", "guard_network", "mismatch"]
