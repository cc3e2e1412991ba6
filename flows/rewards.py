"""Claim the creator rewards of every wallet of a list (a YAML file, see
`configs/claim-wallets.yaml`), one after the other, each claim journaled: an unfinished
claim is resumed, nothing is paid twice, and "nothing to claim" is a finished claim of
nothing. `launchops deploy --claim-wallets FILE --claim-cron CRON` schedules it."""

from __future__ import annotations

from launchops.tasks.context import flow_context
from prefect import flow

from launchops.library.after import claim_all_in
from launchops.library.after_results import ClaimResult


@flow(name="claim-rewards", log_prints=False)
async def claim_rewards_flow(
    wallets: str | None = None,
    wallet: str | None = None,
    payer: str | None = None,
    profile: str = "sandbox",
    profiles_file: str | None = None,
    base_url: str | None = None,
) -> list[ClaimResult]:
    """The library's `claim_all_in`: the wallets of the file `wallets` (else the one
    `wallet`, else the profile's), each step its Prefect task."""
    async with flow_context(profile, profiles_file, base_url) as flow_ctx:
        return await claim_all_in(
            flow_ctx.ctx, wallets, wallet, payer, call=flow_ctx.call, source=wallets or "flow"
        )
