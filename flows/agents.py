"""Mint the agent of an agent file, once: the journal keeps it by the file's id, so a
second run (or one after a crash at any step) reports the agent minted, never another.

    validate -> build (POST /agents/mint) -> sign -> submit -> confirm
"""

from __future__ import annotations

from launchops.tasks.context import flow_context
from prefect import flow

from launchops.library.after import mint_agent_in
from launchops.library.after_results import AgentResult


@flow(name="mint-agent", log_prints=False)
async def mint_agent_flow(
    path: str,
    profile: str = "sandbox",
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> AgentResult:
    """The library's `mint_agent_in`, each step its Prefect task."""
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:
        return await mint_agent_in(flow_ctx.ctx, path, call=flow_ctx.call)
