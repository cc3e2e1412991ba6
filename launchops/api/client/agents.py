"""The client's calls about agents: listing them, an agent's A2A card (kept with its ETag),
and the transactions that fund or withdraw from an agent's wallet."""

from __future__ import annotations

from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

from launchops.api.cards import CachedCard
from launchops.api.client.transport import Address, Transport, segment, validated
from launchops.api.fields import Network
from launchops.api.models import (
    AgentCard,
    AgentRecord,
    AgentsPage,
    AgentsQuery,
    FundRequest,
    PaginatedAgentsResponse,
    TransactionResponse,
    WithdrawRequest,
)
from launchops.api.responses import json_body, parse, parse_body


class AgentCalls(Transport):
    """GET /agents, GET /agents/{address}/agent-card.json, POST /agents/{address}/fund and
    /withdraw."""

    async def list_agents(
        self,
        *,
        network: Network | str | None = None,
        page: int = 1,
        page_size: int = 24,
        query: str | None = None,
        sort: str = "latest",
        active_only: bool | None = None,
        has_agent_token: bool | None = None,
        has_services: bool | None = None,
        spotlight: bool | None = None,
    ) -> AgentsPage:
        """One page of GET /agents."""
        params = validated(
            AgentsQuery,
            network=network or self.network,
            page=page,
            page_size=page_size,
            query=query,
            sort=sort,
            active_only=active_only,
            has_agent_token=has_agent_token,
            has_services=has_services,
            spotlight=spotlight,
        ).to_params()
        response = await self._call("GET", "agents", params=params)
        return parse(PaginatedAgentsResponse, response).data

    async def iter_agents(
        self, *, page_size: int = 100, **filters: Any
    ) -> AsyncIterator[AgentRecord]:
        """Every agent matching the filters, walking all pages."""
        page = 1
        while True:
            result = await self.list_agents(page=page, page_size=page_size, **filters)
            for agent in result.agents:
                yield agent
            if not result.agents or page >= result.total_pages:
                return
            page += 1

    async def get_agent_card(
        self, address: Address, *, network: Network | str | None = None
    ) -> AgentCard:
        """The agent's A2A card; a repeated call sends If-None-Match and reuses a 304."""
        net = Network(network or self.network)
        key = f"{net}:{address}"
        cached = self.card_cache.get(key)
        headers = {"If-None-Match": cached.etag} if cached else None
        path = f"agents/{segment(address)}/agent-card.json"
        response = await self._call("GET", path, params={"network": net}, headers=headers)
        if response.status_code == 304 and cached:
            return AgentCard.model_validate(cached.card)
        body = json_body(response)
        card = parse_body(AgentCard, body, response)
        if etag := response.headers.get("ETag"):
            self.card_cache.put(key, CachedCard(etag=etag, card=body))
        return card

    async def build_fund_tx(
        self,
        address: Address,
        *,
        sender: Address,
        amount: Decimal | str | float,
        memo: str,
        network: Network | str | None = None,
    ) -> TransactionResponse:
        """An unsigned transaction moving `amount` SOL from `sender` to the agent's wallet."""
        body = validated(
            FundRequest, sender=sender, amount=amount, memo=memo, network=network or self.network
        )
        response = await self._call("POST", f"agents/{segment(address)}/fund", json=body.to_wire())
        return parse(TransactionResponse, response)

    async def build_withdraw_tx(
        self,
        address: Address,
        *,
        sender: Address,
        amount: Decimal | str | float,
        network: Network | str | None = None,
    ) -> TransactionResponse:
        """An unsigned transaction moving `amount` SOL from the agent's wallet to its owner."""
        body = validated(
            WithdrawRequest, sender=sender, amount=amount, network=network or self.network
        )
        path = f"agents/{segment(address)}/withdraw"
        response = await self._call("POST", path, json=body.to_wire())
        return parse(TransactionResponse, response)
