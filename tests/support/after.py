"""After the launch, in tests: a bonding-curve (or launchpool) launch made, sent and
registered on a sandbox through the client; buys on its curve through the admin surface."""

from __future__ import annotations

from typing import Any

from solana.rpc.async_api import AsyncClient
from solders.keypair import Keypair
from solders.pubkey import Pubkey

import launchops.web as web
from launchops.api import programs as p
from launchops.api.client import AsyncServiceClient
from launchops.api.models import LaunchConfig
from launchops.config.recipes import BondingCurveRecipe
from tests.support.solana import send_all

CURVE_TOKEN = {"name": "After Token", "symbol": "AFTER", "image": "https://gateway.irys.xyz/after"}


def curve_config(creator: Pubkey, fee_wallet: Pubkey | None = None, **token: Any) -> LaunchConfig:
    recipe = BondingCurveRecipe(creator_fee_wallet=fee_wallet)
    return LaunchConfig.model_validate(
        {
            **CURVE_TOKEN,
            **token,
            "type": "bondingCurve",
            "publicKey": str(creator),
            "allocations": [a.to_wire() for a in recipe.compile(creator, None, None)],
        }
    )


async def launched(
    client: AsyncServiceClient, rpc: AsyncClient, creator: Keypair, config: LaunchConfig
) -> str:
    """Create, sign, send, confirm and register a launch; its genesis account."""
    created = await client.create_launch(creator.pubkey(), config)
    await send_all(rpc, created.transactions, creator)
    await client.register_launch(created.genesis_account, config)
    return str(created.genesis_account)


def buy(sandbox: Any, genesis: str, lamports: int) -> dict[str, Any]:
    answer = web.post(
        f"{sandbox.url}/_sandbox/buy",
        json={"genesisAddress": genesis, "lamports": lamports},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


async def lamports_of(rpc: AsyncClient, key: Pubkey) -> int:
    """The SOL a wallet holds: its lamports and its wrapped SOL account's (where a
    curve's creator fees are claimed to; its rent is the wallet's too)."""
    wrapped = p.token_account_address(key, p.NATIVE_MINT)
    accounts = (await rpc.get_multiple_accounts([key, wrapped])).value
    return sum(account.lamports for account in accounts if account is not None)
