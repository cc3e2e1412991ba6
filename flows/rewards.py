"""Claim the creator rewards of every wallet of a list (a YAML file, see
`configs/claim-wallets.yaml`), one after the other, each claim journaled: an unfinished
claim is resumed, nothing is paid twice, and "nothing to claim" is a finished claim of
nothing. `launchops deploy --claim-wallets FILE --claim-cron CRON` schedules it."""

from __future__ import annotations

from pathlib import Path

from launchops.tasks.context import flow_context
from prefect import flow

from launchops.after_library import claim_rewards_in
from launchops.after_results import ClaimResult
from launchops.pipeline.claims import read_wallets


@flow(name="claim-rewards", log_prints=False)
async def claim_rewards_flow(
    wallets: str | None = None,
    wallet: str | None = None,
    payer: str | None = None,
    profile: str = "sandbox",
    profiles_file: str | None = None,
) -> list[ClaimResult]:
    """The wallets of the file `wallets` (else the one `wallet`, else the profile's), each
    claimed by the library's `claim_rewards_in`, each step its Prefect task."""
    rows = read_wallets(Path(wallets)) if wallets else [{"wallet": wallet, "payer": payer}]
    source = wallets or "flow"
    async with flow_context(profile, profiles_file) as flow_ctx:
        return [
            await claim_rewards_in(
                flow_ctx.ctx, row["wallet"], row["payer"], call=flow_ctx.call, source=source
            )
            for row in rows
        ]
