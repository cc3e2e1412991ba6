"""A flow run that ended while Prefect's server answered its end with a state of its own,
which holds no result (on CI, a Prefect 3.8 test server under SQLite lock contention
answered a launch's end so, and `launchops launch` printed Prefect's `MissingResult`
traceback for a launch that had registered). `launchops launch` then reports the launch
from the journal, doing nothing again; the state alone is one clear error. The server and
the state it keeps are real; handing that state to the engine as its answer is made here
(no sandbox, and no setting, makes Prefect's server refuse a run's end on demand)."""

from __future__ import annotations

import asyncio
import json

import prefect.flow_engine as engine
import pytest
from typer.testing import CliRunner

from launchops.cli import app
from launchops.errors import FlowResultLost
from tests.support.pipeline import aim_flows_at, stats, write_launch


@pytest.fixture
def servers_end(monkeypatch):
    """Every flow run's end taken by the server, and its own state (read back, without the
    result) answered to the engine, as a refused proposal's is."""
    proposed = engine.propose_state
    ends = []

    async def answered_by_the_server(client, state, flow_run_id, force=False):
        answered = await proposed(client, state, flow_run_id=flow_run_id, force=force)
        if not state.is_final():
            return answered
        kept = (await client.read_flow_run(flow_run_id)).state
        ends.append((kept.type, kept.data))
        return kept

    monkeypatch.setattr(engine, "propose_state", answered_by_the_server)
    return ends


def test_a_launch_whose_result_the_server_lost_is_reported_from_the_journal(
    sandbox_factory, tmp_path, monkeypatch, prefect_server, servers_end
):
    sandbox = sandbox_factory(slot_ms=20)
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home")
    file = write_launch(tmp_path, key="asked-twice")
    done = CliRunner().invoke(app, ["launch", str(file), "--json"])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["state"] == "registered" and result["fromJournal"], result
    assert [type_.value for type_, _ in servers_end] == ["COMPLETED"]
    assert servers_end[0][1] is None  # the server's end held no result
    assert stats(sandbox)["launches"]["created"] == 1  # reported, not launched again


def test_the_state_alone_is_one_line(sandbox_factory, tmp_path, monkeypatch, prefect_server):
    from launchops.flows.launch import launch_flow
    from launchops.flows.outcome import result_of

    sandbox = sandbox_factory(slot_ms=20)
    aim_flows_at(monkeypatch, sandbox, tmp_path / "home")
    file = write_launch(tmp_path, key="from-the-api")

    async def the_servers_state():
        from prefect.client.orchestration import get_client

        state = await launch_flow(path=str(file), return_state=True)
        async with get_client() as client:
            return (await client.read_flow_run(state.state_details.flow_run_id)).state

    state = asyncio.run(the_servers_state())
    with pytest.raises(FlowResultLost) as lost:
        asyncio.run(result_of(state))
    [line] = str(lost.value).splitlines()
    assert line.startswith("the flow run ended (Completed)") and "run the same command" in line
