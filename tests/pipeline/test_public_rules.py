"""The allocation types the public service no longer takes: on a profile that targets it,
a launch file that would send lockedV2 or raydiumV2 is refused before anything is sent,
with its file, line and what the service takes instead; the sandbox keeps the spec's."""

from __future__ import annotations

from pathlib import Path

import pytest

import launchops.web as web
from launchops.api.errors import LaunchFileError
from launchops.config.launchfile import launch_files
from launchops.pipeline.runner import validate
from tests.support.pipeline import (
    CONFIGS,
    WALLET,
    context_for,
    dump_yaml,
    future,
    launch_document,
    launchops,
    load_launch,
    profile_env,
    stats,
    write_launch,
)


def refusals(path: Path) -> list:
    with pytest.raises(LaunchFileError) as caught:
        load_launch(path, public_service=True)
    return caught.value.file_problems


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_locked_allocations_are_refused_with_their_line(tmp_path):
    path = write_launch(tmp_path)  # a launchpool with lockedAllocations
    [problem] = refusals(path)
    assert problem.field == "launchpool.lockedAllocations"
    assert problem.line == line_of(path, "lockedAllocations:")
    assert "no longer accepted by the public service" in problem.message
    assert "claimScheduleV2" in problem.message
    assert load_launch(path).config.allocations[1].type == "lockedV2"  # the sandbox keeps them


def test_raw_locked_and_raydium_allocations_are_refused_each_with_its_line(tmp_path):
    document = launch_document("raw")
    document["allocations"].append(
        {
            "type": "lockedV2",
            "name": "Team",
            "supply": 1,
            "lockedV2": {
                "type": "streamflow",
                "vesting": {
                    "recipient": str(WALLET),
                    "startTime": future(40),
                    "durationValue": 1,
                    "durationUnit": "YEAR",
                    "unlockSchedule": "MONTH",
                },
            },
        }
    )
    document["allocations"][2]["supply"] -= 1
    path = tmp_path / "raw.yaml"
    path.write_text(dump_yaml(document))
    found = {p.field: p for p in refusals(path)}
    assert set(found) == {"allocations[1]", "allocations[3]"}
    assert "RaydiumLP fund flow" in found["allocations[1]"].message
    assert "claimScheduleV2" in found["allocations[3]"].message
    assert found["allocations[1]"].line == line_of(path, "type: raydiumV2")
    assert found["allocations[3]"].line == line_of(path, "type: lockedV2")
    assert str(found["allocations[1]"]).startswith(f"{path}:{found['allocations[1]'].line}: ")
    assert [a.type for a in load_launch(path).config.allocations][1] == "raydiumV2"


def test_the_examples_suit_the_public_service_but_the_locked_one(tmp_path):
    public = [p for p in launch_files(CONFIGS) if p.name != "launchpool-locked.yaml"]
    assert len(public) == 8
    for path in public:
        kinds = {a.type for a in load_launch(path, public_service=True).config.allocations}
        assert not kinds & {"lockedV2", "raydiumV2"}, path
    [problem] = refusals(CONFIGS / "launchpool-locked.yaml")
    assert problem.field == "launchpool.lockedAllocations"


def test_the_presale_recipe_emits_presale_then_unlocked(tmp_path):
    config = load_launch(write_launch(tmp_path, form="presale"), public_service=True).config
    assert [(a.type, a.name) for a in config.allocations] == [
        ("presaleV2", "Presale"),
        ("unlockedV2", "Creator Allocation"),
    ]


@pytest.mark.parametrize("decimals,ok", [(0, False), (1, True), (9, True), (10, False)])
def test_decimals_are_1_to_9(tmp_path, decimals, ok):
    document = launch_document("raw", decimals=decimals, supply=1_000_000)
    liquidity = document["allocations"].pop(1)  # no raydiumV2: the public service's types
    document["allocations"][1]["supply"] += liquidity["supply"]
    path = tmp_path / "decimals.yaml"
    path.write_text(dump_yaml(document))
    if ok:
        assert load_launch(path, public_service=True).config.decimals == decimals
        return
    [problem] = refusals(path)
    assert (problem.field, problem.line) == ("decimals", line_of(path, "decimals:"))
    assert problem.message == f"must be 1 to 9 (got {decimals})"


async def test_a_public_profile_sends_nothing_for_a_refused_file(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    async with context_for(sandbox, tmp_path, service="public") as ctx:
        with pytest.raises(LaunchFileError, match="claimScheduleV2"):
            await validate(ctx, write_launch(tmp_path, key="locked"))
        assert await ctx.journal.get("locked") is None
    assert stats(sandbox)["api"] == {}  # no create
    assert "sendTransaction" not in stats(sandbox)["rpc"]  # (the faucet funded the test key)


def test_the_command_names_file_line_and_what_to_send_instead(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    env = {**profile_env(sandbox, tmp_path / "home"), "LAUNCHOPS_SERVICE": "public"}
    path = write_launch(tmp_path, key="locked-cli")
    web.post(f"{sandbox.url}/_sandbox/stats/reset").raise_for_status()
    result = launchops(env, "launch", str(path), "--no-prefect", "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    where = f"{path}:{line_of(path, 'lockedAllocations:')}"
    assert f"error: {where}: launchpool.lockedAllocations: " in result.stderr  # the README form
    assert "claimScheduleV2" in result.stderr
    assert stats(sandbox)["api"] == {}
