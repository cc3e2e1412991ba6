"""Examples from the spec and the shared notes (genesis-api.md, service-facts.md),
with full base58 keys where the notes elide them."""

from __future__ import annotations

import base64
import copy
from typing import Any

from launchops.api.models import LaunchConfig

WALLET = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
RECIPIENT = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
GENESIS = "7nE9GvcwsqzYcPUYfm5gxzCKfmPqi7MdoxvGyb7z6EQN"
AGENT = "FQ5VGe7gDwNVSPYqV7vUv8pVg8cCjJdJL6RLbXvVaGV2"
AGENT_WALLET = "3Ff9kDZpWTrYXLNXkm5f5Q4mPm7TxwaKv8eXbhnzXhd9"
BLOCKHASH = "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N"
WSOL = "So11111111111111111111111111111111111111112"
START = "2026-03-01T00:00:00.000Z"
END = "2026-03-03T00:00:00.000Z"

GRADUATE = {
    "type": "TimeRelativeToUnknownAddress",
    "bucketType": "raydiumV2",
    "bucketIndex": 0,
    "bucketTime": "Graduate",
    "timeOffset": 0,
}


def launchpool_launch() -> dict[str, Any]:
    """The `launch` object the public JS client builds for a launchpool (payloadBuilder)."""
    end = {"type": "TimeAbsolute", "timestamp": END}
    return {
        "type": "launchpool",
        "name": "My Token",
        "symbol": "MTK",
        "image": "https://gateway.irys.xyz/abc123",
        "description": "A community-driven token.",
        "externalLinks": {"website": "https://example.com", "twitter": "@mytoken"},
        "publicKey": WALLET,
        "network": "solana-mainnet",
        "quoteMint": WSOL,
        "decimals": 6,
        "supply": 1000000000,
        "genesisVersion": "v2",
        "genesisIndex": 0,
        "isMutable": True,
        "useExistingToken": False,
        "finalize": True,
        "allocations": [
            {
                "type": "launchpoolV2",
                "name": "Launchpool",
                "supply": 500000000,
                "launchpoolV2": {
                    "depositStartCondition": {"type": "TimeAbsolute", "timestamp": START},
                    "depositEndCondition": end,
                    "claimStartCondition": GRADUATE,
                    "claimEndCondition": {"type": "Never"},
                    "minimumQuoteTokenThreshold": 250,
                    "depositBonus": {
                        "enabled": True,
                        "point1TimeBps": 5000,
                        "point1Bps": 2500,
                        "point2TimeBps": 7500,
                        "point2Bps": 0,
                        "maxBps": 2500,
                    },
                    "withdrawPenalty": {
                        "enabled": True,
                        "point1TimeBps": 7500,
                        "point1Bps": 0,
                        "point2TimeBps": 10000,
                        "point2Bps": 2500,
                        "maxBps": 10000,
                    },
                    "fundFlows": [
                        {
                            "type": "UnlockedFunds",
                            "name": "Unlocked",
                            "supply": 0,
                            "percentageBps": 5000,
                            "recipient": RECIPIENT,
                            "claimStartCondition": GRADUATE,
                            "claimEndCondition": {"type": "Never"},
                        },
                        {
                            "type": "RaydiumLP",
                            "name": "Liquidity Pool",
                            "supply": 250000000,
                            "percentageBps": 5000,
                            "startCondition": end,
                            "lpLockSchedule": {
                                "enabled": True,
                                "startCondition": end,
                                "duration": 31536000,
                                "period": 7883982,
                                "cliffCondition": end,
                                "cliffAmountBps": 0,
                            },
                        },
                    ],
                },
            },
            {
                "type": "lockedV2",
                "name": "Team",
                "supply": 100000000,
                "lockedV2": {
                    "type": "streamflow",
                    "vesting": {
                        "recipient": RECIPIENT,
                        "startTime": "2026-03-04T00:00:00.000Z",
                        "durationValue": 1,
                        "durationUnit": "YEAR",
                        "unlockSchedule": "MONTH",
                        "cliff": {
                            "enabled": True,
                            "durationValue": 3,
                            "durationUnit": "MONTH",
                            "unlockAmount": {"type": "linear"},
                        },
                        "cancelableBySender": False,
                        "cancelableByRecipient": False,
                        "transferableBySender": False,
                        "transferableByRecipient": False,
                    },
                },
            },
            {
                "type": "unlockedV2",
                "name": "Creator Allocation",
                "supply": 150000000,
                "unlockedV2": {
                    "recipient": WALLET,
                    "claimStartCondition": GRADUATE,
                    "claimEndCondition": {"type": "Never"},
                },
            },
        ],
    }


def launchpool_config() -> LaunchConfig:
    """The launchpool example, as the client takes it."""
    return LaunchConfig.model_validate(launchpool_launch())


def presale_launch() -> dict[str, Any]:
    return {
        "type": "presale",
        "name": "Presale Token",
        "symbol": "PRE",
        "image": "https://gateway.irys.xyz/pre",
        "publicKey": WALLET,
        "network": "solana-devnet",
        "decimals": 9,
        "supply": 500000000,
        "allocations": [
            {
                "type": "presaleV2",
                "name": "Presale",
                "supply": 300000000,
                "presaleV2": {
                    "allocationQuoteTokenCap": 1000,
                    "depositStartCondition": {"type": "TimeAbsolute", "timestamp": START},
                    "depositEndCondition": {"type": "TimeAbsolute", "timestamp": END},
                    "claimStartCondition": {"type": "TimeAbsolute", "timestamp": END},
                    "claimEndCondition": {"type": "Never"},
                    "minimumDepositAmount": 0.1,
                },
            },
            {"type": "raydiumV2", "name": "Liquidity", "supply": 100000000, "raydiumV2": {}},
            {
                "type": "unlockedV2",
                "name": "Treasury",
                "supply": 100000000,
                "unlockedV2": {
                    "recipient": RECIPIENT,
                    "claimStartCondition": {"type": "Always"},
                    "claimEndCondition": {"type": "Never"},
                },
            },
        ],
    }


def create_body(launch: dict[str, Any] | None = None) -> dict[str, Any]:
    launch = launch or launchpool_launch()
    return {"wallet": launch["publicKey"], "buildAllTx": True, "launch": launch}


TX = base64.b64encode(bytes(range(200))).decode()

CREATE_RESPONSE = {
    "success": True,
    "transactions": [TX, TX],
    "blockhash": {"blockhash": BLOCKHASH, "lastValidBlockHeight": 312345678},
    "mintAddress": MINT,
    "genesisAccount": GENESIS,
}

REGISTER_RESPONSE = {
    "success": True,
    "existing": True,
    "launch": {"id": "lch_8f2k", "link": "https://www.metaplex.com/launch/mytoken"},
    "token": {"id": "tok_3x9", "mintAddress": MINT},
}

FUND_RESPONSE = {
    "success": True,
    "tx": TX,
    "blockhash": {"blockhash": BLOCKHASH, "lastValidBlockHeight": 312345678},
}

AGENT_CARD = {
    "name": "Research Agent",
    "description": "Finds and summarises papers.",
    "url": f"https://api.metaplex.com/v1/agents/{AGENT}/agent-card.json",
    "version": "1.0.0",
    "capabilities": {"streaming": False},
    "skills": [
        {"id": "search", "name": "Search", "description": "Search papers", "tags": ["research"]}
    ],
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    # fields the A2A specification governs, kept as stored
    "protocolVersion": "0.3.0",
    "preferredTransport": "JSONRPC",
    "provider": {"organization": "Example Labs", "url": "https://example.com"},
}

AGENT_RECORD = {
    "mintAddress": AGENT,
    "network": "solana-mainnet",
    "name": "Research Agent",
    "description": "Finds and summarises papers.",
    "image": "https://gateway.irys.xyz/agent.png",
    "walletAddress": AGENT_WALLET,
    "authority": WALLET,
    "agentToken": MINT,
    "agentMetadataUri": f"https://api.metaplex.com/v1/agents/{AGENT}/agent-card.json",
    "metadata": {
        "type": "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
        "name": "Research Agent",
        "description": "Finds and summarises papers.",
        "image": "https://gateway.irys.xyz/agent.png",
        "services": [{"name": "A2A", "endpoint": "https://agent.example.com", "version": "0.3.0"}],
        "active": True,
        "registrations": [{"agentId": AGENT, "agentRegistry": "solana:101:metaplex"}],
    },
    "a2aCard": AGENT_CARD,
    "isActive": True,
    "registrationSignature": "5" * 87,
    "indexedAt": "2026-01-15T14:00:05.000Z",
    "spotlightedAt": None,
    "verifiedAt": "2026-01-16T09:00:00.000Z",
    "createdAt": "2026-01-15T14:00:00.000Z",
    "updatedAt": "2026-01-16T09:00:00.000Z",
    "ownerScore": 7,  # a field the spec does not list: kept
}


def agents_page(
    agents: list[dict[str, Any]], page: int = 1, page_size: int = 24, total: int | None = None
):
    total = len(agents) if total is None else total
    return {
        "success": True,
        "data": {
            "agents": agents,
            "total": total,
            "page": page,
            "pageSize": page_size,
            "totalPages": max(1, -(-total // page_size)),
        },
    }


TOKEN_RESPONSE = {
    "data": {
        "launches": [
            {
                "launchPage": "https://example.com/launch/mytoken",
                "mechanic": "launchpoolV2",
                "genesisAddress": GENESIS,
                "spotlight": False,
                "startTime": "2026-01-15T14:00:00.000Z",
                "endTime": "2026-01-15T18:00:00.000Z",
                "status": "graduated",
                "heroUrl": "launches/abc123/hero.webp",
                "graduatedAt": "2026-01-15T18:05:00.000Z",
                "lastActivityAt": "2026-01-15T17:45:00.000Z",
                "type": "launchpool",
            }
        ],
        "baseToken": {
            "address": MINT,
            "name": "My Token",
            "symbol": "MTK",
            "image": "https://example.com/token-image.png",
            "description": "A community-driven token for the example ecosystem.",
        },
        "website": "https://example.com",
        "socials": {
            "x": "https://x.com/mytoken",
            "telegram": "https://t.me/mytoken",
            "discord": "https://discord.gg/mytoken",
        },
    }
}

ERROR_ENVELOPE = {
    "success": False,
    "error": "Invalid input data",
    "details": [{"path": ["amount"], "message": "Number must be greater than 0"}],
}
READ_ERROR = {"error": {"message": "Token not found"}}


def copy_of(value: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(value)
