"""POST /agents/mint in the sandbox. mpl-core does not run here, so the mint transaction
creates the asset account (owned by the mpl-core program id, its size and rent those of
the asset) with the wallet paying, signed by the new asset's key, plus a memo for the
identity registration. Once it lands and is confirmed, the sandbox itself writes the
asset's data (owner: the wallet) and indexes the agent: only then does it show in GET
/agents, and it can be funded and withdrawn from like any other. Every call is a new
agent: nothing deduplicates."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from solders.keypair import Keypair
from solders.pubkey import Pubkey
from solders.system_program import CreateAccountParams, create_account

from launchops.api import programs as p
from launchops.api.after import MintAgentRequest, MintAgentResponse
from launchops.api.fields import Network, iso_utc
from launchops.api.launches import BlockhashInfo
from launchops.sandbox.chain import Chain
from launchops.sandbox.launches import LaunchRejected, partly_signed
from launchops.sandbox.registry import EIP8004_TYPE, Registry

REGISTRIES = {Network.MAINNET: "solana:101:metaplex", Network.DEVNET: "solana:103:metaplex"}
A2A_VERSION = "0.3.0"


def build_mint(chain: Chain, registry: Registry, body: MintAgentRequest) -> MintAgentResponse:
    """The mint transaction, signed by the new asset; its record kept until it lands."""
    if body.collection_address is not None:
        collection = chain.account(body.collection_address)
        if collection is None or collection.owner != p.MPL_CORE_PROGRAM:
            raise LaunchRejected(f"Collection not found: {body.collection_address}")
    asset = Keypair()
    data = p.asset_data(body.wallet, body.wallet, body.name, body.uri)
    ixs = [
        create_account(
            CreateAccountParams(
                from_pubkey=body.wallet,
                to_pubkey=asset.pubkey(),
                lamports=chain.rent_exempt(len(data)),
                space=len(data),
                owner=p.MPL_CORE_PROGRAM,
            )
        ),
        p.memo(f"register agent identity {asset.pubkey()}", body.wallet),
    ]
    blockhash, last_valid = chain.blockhash_for_new()
    [message] = chain.build(body.wallet, [ixs], blockhash)
    record = agent_record(registry.public_url, asset.pubkey(), body)
    registry.store.put(
        "agent-mint", str(asset.pubkey()), {"record": record, "owner": str(body.wallet)}
    )
    return MintAgentResponse(
        tx=bytes(partly_signed(message, [asset])),
        blockhash=BlockhashInfo(blockhash=blockhash, last_valid_block_height=last_valid),
        asset_address=asset.pubkey(),
    )


def index_minted(chain: Chain, registry: Registry) -> None:
    """Index every pending mint whose transaction landed and is confirmed."""
    for pending in list(registry.store.all("agent-mint")):
        record = pending["record"]
        asset = Pubkey.from_string(record["mintAddress"])
        landed = [
            (signature, chain.landed[signature])
            for signature in chain.signatures_of(asset)
            if signature in chain.landed
        ]
        confirmed = [s for s, x in landed if x.err is None and x.slot < chain.slot]
        if not confirmed or chain.account(asset) is None:
            continue
        now = iso_utc(datetime.now(UTC))
        record.update(registrationSignature=str(confirmed[0]), indexedAt=now, updatedAt=now)
        registry.add_agent(record, Pubkey.from_string(pending["owner"]))
        registry.store.delete("agent-mint", record["mintAddress"])


def agent_record(public_url: str, asset: Pubkey, body: MintAgentRequest) -> dict[str, Any]:
    """The agent as GET /agents will list it: the service's registry entry first in
    `registrations`, a hosted A2A service added unless one is there, the card as given
    or made from the metadata."""
    card_url = f"{public_url}/v1/agents/{asset}/agent-card.json"
    metadata = body.agent_metadata.to_wire()
    metadata.setdefault("type", EIP8004_TYPE)
    ours = {"agentId": str(asset), "agentRegistry": REGISTRIES[body.network]}
    metadata["registrations"] = [ours, *metadata.get("registrations", [])]
    services = metadata.get("services", [])
    if not any(str(s.get("name", "")).upper() == "A2A" for s in services):
        services.append({"name": "A2A", "endpoint": card_url, "version": A2A_VERSION})
    metadata["services"] = services
    meta = body.agent_metadata
    card = body.a2a_card or {
        "protocolVersion": A2A_VERSION,
        "name": meta.name,
        "description": meta.description,
        "url": card_url,
        "version": "1.0.0",
        "capabilities": {"streaming": False},
        "skills": [],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
    }
    now = iso_utc(datetime.now(UTC))
    return {
        "mintAddress": str(asset),
        "network": str(body.network),
        "name": body.name,
        "description": meta.description,
        "image": meta.image,
        "walletAddress": str(p.agent_wallet(asset)),
        "authority": str(body.wallet),
        "agentToken": None,
        "agentMetadataUri": body.uri,
        "metadata": metadata,
        "a2aCard": card,
        "isActive": meta.active,
        "registrationSignature": None,
        "indexedAt": None,
        "spotlightedAt": None,
        "verifiedAt": None,
        "createdAt": now,
        "updatedAt": now,
    }
