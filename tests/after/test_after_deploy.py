"""`launchops deploy` schedules the creator-reward claims of a wallets file and the
launch watch, each on its cron."""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner

from launchops.cli import app

ROOT = Path(__file__).resolve().parents[2]


def test_deploy_schedules_the_claims_and_the_watch(tmp_path, monkeypatch, prefect_server):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate

    monkeypatch.setenv("LAUNCHOPS_HOME", str(tmp_path / "home"))

    async def make_pool() -> None:
        async with get_client() as client:
            await client.create_work_pool(WorkPoolCreate(name="launchops-after", type="process"))

    asyncio.run(make_pool())
    wallets = ROOT / "configs" / "claim-wallets.yaml"
    result = CliRunner().invoke(
        app,
        [
            "deploy",
            "--pool",
            "launchops-after",
            "--claim-wallets",
            str(wallets),
            "--claim-cron",
            "0 7 * * *",
            "--watch-cron",
            "*/10 * * * *",
        ],
    )
    assert result.exit_code == 0, result.output

    async def read() -> dict[str, tuple[list, dict]]:
        async with get_client() as client:
            found = await client.read_deployments()
            return {d.name: ([s.schedule for s in d.schedules], d.parameters) for d in found}

    deployments = asyncio.run(read())
    schedules, parameters = deployments["claim-rewards-sandbox"]
    assert schedules[0].cron == "0 7 * * *" and parameters["wallets"] == str(wallets)
    assert deployments["watch-launches-sandbox"][0][0].cron == "*/10 * * * *"
