"""The sandbox's own surface, outside `/v1` (its OpenAPI shows it under the tag `sandbox`):
faults to inject, what was served, slots advanced by hand, agents seeded."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit, urlunsplit

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse
from pydantic import ConfigDict, Field

from launchops.api.amounts import Integer
from launchops.api.fields import Network, PublicKey, WireModel
from launchops.sandbox.compromise import STRANGER
from launchops.sandbox.faults import Faults
from launchops.sandbox.rewards import MAX_BUY_LAMPORTS, SwapRefused
from launchops.sandbox.routes import block_engine
from launchops.sandbox.routes.errors import envelope, not_a_key, public_key
from launchops.sandbox.routes.state import Service

router = APIRouter(prefix="/_sandbox", tags=["sandbox"])


@router.get("/faults")
async def get_faults(service: Service) -> dict[str, Any]:
    return service.faults.model_dump()


@router.put("/faults")
async def put_faults(service: Service, body: Annotated[dict[str, Any], Body()]) -> JSONResponse:
    try:
        faults = Faults.model_validate({**service.faults.model_dump(), **body})
    except ValueError as exc:
        return envelope(400, "Invalid faults", [str(exc)])
    service.set_faults(faults)
    return JSONResponse(faults.model_dump())


@router.get("/stats")
async def stats(service: Service) -> dict[str, Any]:
    chain = service.chain
    return {
        **service.stats.snapshot(),
        "chain": {
            "slot": chain.slot,
            "transactions": len(chain.landed),
            "dropped": len(chain.dropped),
        },
        "launches": service.launch_counts(),
        "bundles": service.block_engine.counts(),
        "sniped": sorted(service.sniper.sniped),
    }


@router.get("/info")
async def info(service: Service, request: Request) -> dict[str, Any]:
    """Which chain this service builds on: the RPC URL a client of it uses (unless it is
    given one), its block engine's (Jito's paths), and the node identity that RPC answers
    to `getIdentity`."""
    root = urlsplit(service.public_url)
    if root.hostname in ("0.0.0.0", "::", None):  # listening everywhere: as it was reached
        root = root._replace(netloc=request.url.netloc)
    rpc_url = urlunsplit(root)
    return {
        "rpcUrl": rpc_url,
        "blockEngineUrl": rpc_url.rstrip("/") + block_engine.PREFIX,
        "identity": service.identity,
        "cluster": service.faults.cluster,
    }


@router.get("/launches")
async def launches(service: Service) -> dict[str, Any]:
    """Every create the service answered (name, symbol, creator, network, genesis account,
    mint) with whether its mint is on chain now and whether it was registered: what the
    simulation counts mints by, apart from any client's journal; and what the stranger a
    compromised service pays holds (`compromise.STRANGER`: 0 unless a theft landed)."""
    stranger = {"address": str(STRANGER), "lamports": service.chain.lamports(STRANGER)}
    return {"launches": service.creates(), "stranger": stranger}


@router.post("/stats/reset")
async def reset_stats(service: Service) -> dict[str, bool]:
    service.stats.reset()
    return {"success": True}


@router.get("/registrations/{genesis}")
async def registration(service: Service, genesis: str) -> JSONResponse:
    """What register kept of a launch: its answer, the creator's wallet, the agent, and
    whether a Twitter verification token came (as its digest, never the token)."""
    found = service.registration(genesis)
    if found is None:
        return envelope(404, "No registration for this genesis account")
    return JSONResponse(found)


@router.post("/advance")
async def advance(
    service: Service, slots: Annotated[int, Query(ge=1, le=10_000)] = 1
) -> dict[str, int]:
    service.chain.advance(slots)
    return {"slot": service.chain.slot}


@router.post("/seed")
async def seed(
    service: Service,
    agents: Annotated[int, Query(ge=1, le=10_000)] = 10,
    network: Network = Network.MAINNET,
    owner: str | None = None,
) -> JSONResponse:
    owner_key = public_key(owner) if owner else None
    if owner and owner_key is None:
        return not_a_key("owner")
    made = service.registry.seed(agents, network=network, owner=owner_key)
    return JSONResponse({"success": True, "agents": [a["mintAddress"] for a in made]})


class BuyRequest(WireModel):
    """A swap on a launch's bonding curve (its Raydium pool once sold out)."""

    model_config = ConfigDict(extra="forbid")

    genesis_address: PublicKey
    lamports: Integer(1, MAX_BUY_LAMPORTS) = Field(
        description="SOL paid, fees included (0.50 % protocol, 0.60 % creator)"
    )


@router.post("/buy")
async def buy(service: Service, body: Annotated[BuyRequest, Body()]) -> JSONResponse:
    """Buy on a bonding curve: real SOL moved on the chain, creator fees accrued to the
    creator's fee account (what POST /v1/creator-rewards/claim pays out)."""
    try:
        made = service.rewards.buy(str(body.genesis_address), body.lamports)
    except SwapRefused as exc:
        return envelope(404 if "No bonding curve" in str(exc) else 400, str(exc))
    return JSONResponse({"success": True, **made})
