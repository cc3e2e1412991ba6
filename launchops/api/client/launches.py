"""The client's calls of a launch: create (the transactions the service builds), register
(idempotent, so retried longer) and a token's launches."""

from __future__ import annotations

from typing import Any

from launchops.api.client.transport import Address, Transport, segment, validated
from launchops.api.fields import Network
from launchops.api.models import (
    AgentLink,
    CreateLaunchRequest,
    CreateLaunchResponse,
    LaunchConfig,
    RegisterLaunchRequest,
    RegisterLaunchResponse,
    TokenData,
    TokenResponse,
)
from launchops.api.responses import parse


class LaunchCalls(Transport):
    """POST /launches/create, POST /launches/register, GET /tokens/{mint}."""

    @staticmethod
    def create_body(
        wallet: Address, launch: LaunchConfig, *, agent: AgentLink | None = None
    ) -> dict[str, Any]:
        """The body of POST /launches/create, as the public JS client writes it."""
        return validated(CreateLaunchRequest, wallet=wallet, launch=launch, agent=agent).to_wire()

    async def create_launch(
        self, wallet: Address, launch: LaunchConfig, *, agent: AgentLink | None = None
    ) -> CreateLaunchResponse:
        """POST /launches/create (for an agent, when `agent` is given). Transient failures
        are retried: a launch whose answer was lost was never signed, so it can never land."""
        body = self.create_body(wallet, launch, agent=agent)
        response = await self._call("POST", "launches/create", json=body)
        return parse(CreateLaunchResponse, response)

    async def register_launch(
        self,
        genesis_account: Address,
        launch: LaunchConfig,
        *,
        twitter_verification_token: str | None = None,
        agent: AgentLink | None = None,
        creator_wallet: Address | None = None,
    ) -> RegisterLaunchResponse:
        """POST /launches/register; idempotent, so transient failures are retried. The body
        is the public client's: the create body again (wallet, agent, launch) with the
        genesis account, network, creator's wallet and Twitter verification token."""
        body = validated(
            RegisterLaunchRequest,
            genesis_account=genesis_account,
            network=launch.network,
            creator_wallet=creator_wallet,
            # An empty token is left out, as the public client does.
            twitter_verification_token=twitter_verification_token or None,
            agent=agent,
            wallet=launch.public_key,
            build_all_tx=True,
            launch=launch,
        )
        response = await self._call(
            "POST", "launches/register", json=body.to_wire(), retry=self.register_retry
        )
        return parse(RegisterLaunchResponse, response)

    async def get_token(self, mint: Address, *, network: Network | str | None = None) -> TokenData:
        """Every launch of a token, with its base token metadata and socials."""
        params = {"network": str(Network(network or self.network))}
        response = await self._call("GET", f"tokens/{segment(mint)}", params=params)
        return parse(TokenResponse, response).data
