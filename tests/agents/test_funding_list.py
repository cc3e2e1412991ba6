"""A funding list that is not one is refused naming its line and what to fix, never read as
a list with nothing to pay: a CSV without the header, with a column or a row the header
does not take, a YAML row with a key it does not take. A spreadsheet's export (a byte
order mark, CRLF lines) reads as written. Through the CLI, before Prefect starts."""

from __future__ import annotations

import pytest

from launchops.errors import LaunchFileError
from launchops.pipeline.transfers import read_funding_list
from tests.support.pipeline import launchops, no_service_env

AGENT = "11111111111111111111111111111111"


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("empty.csv", b"", "1: (header): the first line must name the columns agent, amount, "),
        ("junk.csv", b"not a list\x00\x01", "found 'not a list\\x00\\x01'"),
        ("wrong.csv", f"wallet,sol\n{AGENT},1\n".encode(), "found wallet, sol"),
        ("colour.csv", b"agent,amount,memo,colour\n", "1: (header): takes only agent, amount, "),
        ("long.csv", f"agent,amount,memo\n{AGENT},1,m,x\n".encode(), "2: (row): has 4 values"),
        ("short.csv", f"agent,amount,memo\n{AGENT},1\n".encode(), "2: memo: is required"),
        ("colour.yaml", f"- {{agent: {AGENT}, amount: 1, memo: m, colour: red}}\n".encode(), ""),
    ],
)
def test_a_list_that_is_not_one_is_refused_naming_the_line(tmp_path, name, content, said):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(LaunchFileError) as refused:
        read_funding_list(path)
    text = str(refused.value)
    assert text.startswith(f"{path}"), text
    assert said in text, text
    if name == "colour.yaml":
        assert "row 1: takes only agent, amount, memo, id, network; not colour" in text


def test_a_spreadsheets_export_reads_as_written(tmp_path):
    path = tmp_path / "export.csv"
    path.write_bytes(f"\ufeffagent,amount,memo,id\r\n{AGENT},0.5,thanks,\r\n".encode())
    [row] = read_funding_list(path)
    assert (row["agent"], row["amount"], row["memo"], row["line"]) == (AGENT, "0.5", "thanks", 2)
    (tmp_path / "header.csv").write_text("agent,amount,memo\n")
    assert read_funding_list(tmp_path / "header.csv") == []  # a header alone: nothing to pay


def test_the_cli_refuses_it_before_prefect_starts(tmp_path):
    path = tmp_path / "wrong.csv"
    path.write_text(f"wallet,sol\n{AGENT},1\n")
    # Prefect's API is a refused port: had the command asked it, its line would say so
    done = launchops(no_service_env(tmp_path / "home"), "agents", "fund-batch", str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [
        f"error: {path}:1: (header): the first line must name the columns agent, amount, memo; "
        "found wallet, sol"
    ]
