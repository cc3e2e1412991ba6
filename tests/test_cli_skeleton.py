"""The CLI's read commands against a real HTTP server, their --json output, their errors,
and a `--help` that imports nothing heavy."""

from __future__ import annotations

import copy
import json
import os

import pytest
from typer.testing import CliRunner

from launchops.cli import app
from tests.api import examples as ex
from tests.support.pipeline import quick_waits, run_python
from tests.support.scripted import Answer, served

runner = CliRunner(env={"COLUMNS": "250"})


@pytest.fixture(scope="module")
def service():
    with served() as scripted:
        yield scripted


def invoke(service, *args: str):
    return runner.invoke(app, [*args, "--base-url", service.url])


def test_help_imports_no_prefect_fastapi_or_solana():
    code = (
        "import sys\n"
        "from launchops.cli import app\n"
        "try:\n"
        "    app(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "names = ('prefect', 'fastapi', 'solana', 'uvicorn', 'sqlalchemy')\n"
        "heavy = [m for m in names if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy))\n"
    )
    out = run_python(code, dict(os.environ))
    assert "HEAVY=\n" in out
    assert "agents" in out and "tokens" in out


def test_the_journal_loads_sqlalchemy_core_not_its_orm(tmp_path):
    """Every command that opens the journal pays for what it imports: its tables are
    Core tables, and the ORM (a third of SQLAlchemy's import) stays out."""
    code = (
        "import asyncio, sys\n"
        "import launchops.journal.outbox, launchops.journal.watched\n"
        "from launchops.journal.store import Journal\n"
        "async def main():\n"
        f"    journal = await Journal.open('sqlite:///{tmp_path / 'journal.db'}')\n"
        "    await journal.close()\n"
        "asyncio.run(main())\n"
        "print('ORM=' + str('sqlalchemy.orm' in sys.modules))\n"
    )
    out = run_python(code, dict(os.environ))
    assert "ORM=False" in out
    assert (tmp_path / "journal.db").exists()


def test_agents_list_table_and_json(service):
    service.script(
        "GET",
        "agents",
        Answer(body=ex.agents_page([ex.AGENT_RECORD])),
        Answer(body=ex.agents_page([ex.AGENT_RECORD])),
    )
    table = invoke(service, "agents", "list", "--active-only", "--query", "research")
    assert table.exit_code == 0, table.output
    assert "Research Agent" in table.output and "page 1 of 1" in table.output
    as_json = invoke(service, "agents", "list", "--json")
    assert json.loads(as_json.output)[0]["mintAddress"] == ex.AGENT
    assert service.calls("GET", "agents")[0].query["activeOnly"] == "true"


def test_agents_card_and_tokens_get(service):
    service.script(
        "GET",
        f"agents/{ex.AGENT}/agent-card.json",
        Answer(body=ex.AGENT_CARD, headers={"ETag": '"a"'}),
    )
    service.script(
        "GET", f"tokens/{ex.MINT}", Answer(body=ex.TOKEN_RESPONSE), Answer(body=ex.TOKEN_RESPONSE)
    )
    card = invoke(service, "agents", "card", ex.AGENT, "--json")
    assert json.loads(card.output) == ex.AGENT_CARD
    token = invoke(service, "tokens", "get", ex.MINT)
    assert token.exit_code == 0 and "My Token (MTK)" in token.output and "graduated" in token.output
    assert (
        json.loads(invoke(service, "tokens", "get", ex.MINT, "--json").output)
        == ex.TOKEN_RESPONSE["data"]
    )


def test_what_the_service_says_is_printed_as_text(service):
    """A token's or an agent's text is other people's: `[/x]` (rich's markup, which raised
    in `tokens get`) and `:rocket:` (an emoji's name) are printed as they are."""
    odd = "[/x] [bold]not bold[/bold] :rocket:"
    token = copy.deepcopy(ex.TOKEN_RESPONSE)
    token["data"]["baseToken"].update(description=odd, name="[red]Name")
    card = copy.deepcopy(ex.AGENT_CARD)
    card.update(name="[/]Agent", description=odd)
    card["skills"][0].update(name="[/bold]", description=odd)
    service.script("GET", f"tokens/{ex.MINT}", Answer(body=token))
    service.script("GET", f"agents/{ex.AGENT}/agent-card.json", Answer(body=card))
    shown = {
        args[0]: invoke(service, *args)
        for args in (("tokens", "get", ex.MINT), ("agents", "card", ex.AGENT))
    }
    for result in shown.values():
        assert result.exit_code == 0, result.output
        assert odd in result.output and "🚀" not in result.output, result.output
    assert "[red]Name (MTK)" in shown["tokens"].output
    assert "[/]Agent" in shown["agents"].output and "[/bold]" in shown["agents"].output


def test_errors_are_one_clear_line_and_exit_1(service):
    service.script("GET", f"tokens/{ex.MINT}", Answer(status=404, body=ex.READ_ERROR))
    result = invoke(service, "tokens", "get", ex.MINT)
    assert result.exit_code == 1
    assert "404 Token not found" in result.output
    assert "Traceback" not in result.output


def test_a_malformed_address_is_refused_before_any_call(service):
    before = len(service.seen)
    for args, argument in ((("tokens", "get"), "mint"), (("agents", "card"), "address")):
        result = invoke(service, *args, "not-an-address")
        assert result.exit_code == 2, result.output  # refused: nothing was asked
        assert f"{argument}: must be a base58 public key" in result.output, result.output
        assert "'not-an-address'" in result.output and "Traceback" not in result.output
    assert len(service.seen) == before  # nothing was asked


def test_bad_network_is_named():
    result = runner.invoke(app, ["tokens", "get", ex.MINT, "--network", "solana-testnet"])
    assert result.exit_code == 2
    assert "--network: must be solana-mainnet or solana-devnet" in result.output


def test_unreachable_sandbox_gets_a_hint(monkeypatch):
    quick_waits(monkeypatch, "SERVICE_CALLS")  # the hint, not the waits
    result = runner.invoke(app, ["agents", "list", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 1
    assert "cannot reach the service" in result.output
    assert "launchops sandbox serve" in result.output


def test_tables_fit_80_columns_with_shortened_addresses(service):
    narrow = CliRunner(env={"COLUMNS": "80"})
    service.script("GET", "agents", Answer(body=ex.agents_page([ex.AGENT_RECORD])))
    result = narrow.invoke(app, ["agents", "list", "--base-url", service.url])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if "Research" in line)
    mint, wallet = ex.AGENT_RECORD["mintAddress"], ex.AGENT_RECORD["walletAddress"]
    assert f"{mint[:6]}…{mint[-6:]}" in row and "Research Agent" in row  # the name whole
    assert mint not in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())
    wide = CliRunner(env={"COLUMNS": "120"})  # the wallet (derived from the mint) fits there
    service.script("GET", "agents", Answer(body=ex.agents_page([ex.AGENT_RECORD])))
    result = wide.invoke(app, ["agents", "list", "--base-url", service.url])
    assert f"{wallet[:6]}…{wallet[-6:]}" in result.output
    service.script("GET", f"tokens/{ex.MINT}", Answer(body=ex.TOKEN_RESPONSE))
    token = narrow.invoke(app, ["tokens", "get", ex.MINT, "--base-url", service.url])
    genesis = ex.TOKEN_RESPONSE["data"]["launches"][0]["genesisAddress"]
    assert f"{genesis[:6]}…{genesis[-6:]}" in token.output
