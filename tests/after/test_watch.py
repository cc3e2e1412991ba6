"""Launch status after the launch: the library's status and list, and the watch that
emits a launch's graduation once (plain driver, then the flow through Prefect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from launchops.library.after import (
    launch_status_in,
    list_launches_in,
    watch_launches_in,
)
from launchops.library.after_results import StatusChange
from launchops.library.launches import UnknownLaunch, launch_in
from tests.support.after import buy
from tests.support.pipeline import aim_flows_at, context_for


def curve_file(folder: Path, key: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.yaml"
    path.write_text(
        f"id: {key}\nname: Watched Curve\nsymbol: WATCH\n"
        "image: https://gateway.irys.xyz/watched\nbondingCurve: {}\n"
    )
    return path


async def test_status_list_and_a_graduation_emitted_once(sandbox_factory, tmp_path):
    sandbox = sandbox_factory()
    emitted: list[StatusChange] = []
    async with context_for(sandbox, tmp_path / "home") as ctx:
        launched = await launch_in(ctx, curve_file(tmp_path / "launches", "watched"))
        assert launched.finished, launched
        genesis = launched.genesis_account
        by_key = await launch_status_in(ctx, "watched")
        by_genesis = await launch_status_in(ctx, genesis)
        assert by_key == by_genesis and by_key.status == "live" and by_key.key == "watched"
        live = await list_launches_in(ctx, "live")
        assert [r.key for r in live if r.genesis_address == genesis] == ["watched"]
        first = await watch_launches_in(ctx, emit=emitted.append)
        assert first.changes == () and first.watching == ("watched",)
        buy(sandbox, genesis, 200 * 10**9)  # sells the curve out: graduated
        second = await watch_launches_in(ctx, emit=emitted.append)
        third = await watch_launches_in(ctx, emit=emitted.append)
        with pytest.raises(UnknownLaunch):
            await launch_status_in(ctx, "no-such-launch")
    assert [(c.key, c.status, c.previous) for c in emitted] == [("watched", "graduated", "live")]
    assert second.watching == () and third.changes == ()
    assert third.statuses == {"watched": "graduated"}


async def test_the_watch_flow_through_prefect(
    sandbox_factory, tmp_path, monkeypatch, prefect_server
):
    from launchops.flows.watch import watch_launches_flow
    from launchops.tasks.watch import status_event

    sandbox = sandbox_factory()
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home")
    async with context_for(sandbox, tmp_path / "home") as ctx:
        launched = await launch_in(ctx, curve_file(tmp_path / "launches", "flow-watched"))
    buy(sandbox, launched.genesis_account, 200 * 10**9)
    result = await watch_launches_flow(paths=[str(tmp_path / "launches")])  # a batch's
    again = await watch_launches_flow()
    assert [c.status for c in result.changes] == ["graduated"] and again.changes == ()
    event = status_event(result.changes[0])
    assert event["event"] == "launchops.launch.graduated"
    assert event["resource"]["prefect.resource.id"] == "launchops.launch.flow-watched"
