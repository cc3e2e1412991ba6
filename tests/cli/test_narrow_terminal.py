"""At 80 columns (tmux, 80x40) a launch, a failed launch's panel, `status` (claim keys
told apart by their `-N`), `agents list`, `agents card`, `tokens get` (its launch page on
one line) and a funding report fit the terminal: nothing is wider than the screen, and every key,
address, signature and URL shown is whole or in its short form (`HrpvHK…N1j2DS`), never
broken over two lines."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import sys

import pytest
from solders.keypair import Keypair

import launchops.web as web
from launchops.cli.common import short
from tests.support.pipeline import profile_env, write_launch
from tests.support.terminal import Terminal

COLUMNS = 80
BASE58_RUN = re.compile(r"[1-9A-HJ-NP-Za-km-z]{20,}")
URL = re.compile(r"https?://\S+")


@pytest.fixture
def terminal():
    term = Terminal(COLUMNS, 40)
    yield term
    term.close()


def _script(sandbox, tmp_path) -> tuple[str, dict[str, list[str]]]:
    """The commands, one after the other, each followed by its marker and exit code; and
    what they will show (agents, launch keys)."""
    agents = web.get(f"{sandbox.base_url}/agents").json()["data"]["agents"]
    good = write_launch(tmp_path / "launches", "good.yaml", key="narrow-terminal-launch")
    bad = write_launch(tmp_path / "launches", "bad.yaml", key="refused-launch", symbol="BAD")
    funding = tmp_path / "funding.csv"
    funding.write_text(
        "agent,amount,memo\n"
        + "".join(f"{a['mintAddress']},0.25,thanks\n" for a in agents[:2])
        + f"{Keypair().pubkey()},1,nobody\n"
    )
    cli = f"{shlex.quote(sys.executable)} -m launchops.cli"
    fault = f"{cli} sandbox faults --url {sandbox.url}"
    result = tmp_path / "home" / "sandbox" / "results" / "narrow-terminal-launch.json"
    read = f'import json; print(json.load(open("{result}"))["mint"])'
    mint = f"$({shlex.quote(sys.executable)} -c {shlex.quote(read)})"
    lines = [
        f"{cli} launch {good} --no-prefect; echo @@launch=$?",
        f"{cli} tokens get {mint}; echo @@token=$?",
        f"{cli} agents card {agents[0]['mintAddress']}; echo @@card=$?",
        *[f"{cli} rewards claim --no-prefect >/dev/null" for _ in range(3)],
        f"{fault} --set fail_status=400 --set 'fail_next=POST /v1/launches/create:1' >/dev/null",
        f"{cli} launch {bad} --no-prefect; echo @@failed=$?",
        f"{fault} --clear >/dev/null",
        f"{cli} status; echo @@status=$?",
        f"{cli} agents list; echo @@agents=$?",
        f"{cli} agents fund-batch {funding} --no-prefect; echo @@fund=$?",
    ]
    shown = {
        "agents": [a["mintAddress"] for a in agents],
        "names": [a["name"] for a in agents],
        "keys": ["narrow-terminal-launch", "refused-launch"],
    }
    return "\n".join(lines) + "\n", shown


def _wrapped_by_the_terminal(joined: str) -> list[str]:
    """Lines wider than the screen, which the terminal wrapped (tmux -J joins them)."""
    return [line for line in joined.splitlines() if len(line) > COLUMNS]


def _cut_mid_word(screen: str) -> list[str]:
    """Lines that fill their width (the screen's, or a panel's inside its border) with a
    word that goes on at the start of the next line: a word broken in two."""
    lines = screen.splitlines()
    cut = []
    for line, after in itertools.pairwise(lines):
        if line.endswith("│"):  # a panel or a table: its text ends before " │"
            full, last = len(line) == COLUMNS and line[-2] == " ", line[-3]
        else:
            full, last = len(line) == COLUMNS, line[-1:] or " "
        first = after.lstrip("│ ")[:1]
        if not line.startswith(" ") and after.startswith("    "):
            continue  # a listing's row, then its detail line: not a word going on
        if full and (last.isalnum() or last in "-_/") and first.isalnum():
            cut.append(f"{line}\n{after}")
    return cut


def test_everything_fits_80_columns_without_a_broken_word(sandbox_factory, tmp_path, terminal):
    sandbox = sandbox_factory(slot_ms=50, seed_agents=3, seed=6)
    script, shown = _script(sandbox, tmp_path)
    (tmp_path / "steps.sh").write_text(script)
    env = {k: v for k, v in profile_env(sandbox, tmp_path / "home").items() if "LAUNCHOPS" in k}
    terminal.run(["sh", str(tmp_path / "steps.sh")], env, tmp_path / "run.sh")
    screen = terminal.wait_for(lambda text: "EXIT=" in text, timeout=300)
    print(screen)  # pytest -s shows what a person sees
    markers = ("@@launch=0", "@@token=0", "@@card=0", "@@failed=1", "@@status=0", "@@agents=0")
    for marker in (*markers, "@@fund=1"):
        assert marker in screen, screen[-3000:]

    assert _wrapped_by_the_terminal(terminal.screen(joined=True)) == []
    assert _cut_mid_word(screen) == []

    results = tmp_path / "home" / "sandbox" / "results"
    launched = web.get(f"{sandbox.url}/_sandbox/stats").json()["launches"]
    assert launched["registered"] == 1
    good = json.loads((results / "narrow-terminal-launch.json").read_text())
    addresses = [good["mint"], good["genesisAccount"], *shown["agents"]]
    for address in addresses:  # whole, or short; never a piece
        assert address in screen or short(address) in screen, address
    addresses += good["signatures"]
    for found in BASE58_RUN.finditer(screen):  # every long base58 word shown is a whole one
        cut = screen[found.end() : found.end() + 1] == "…"  # or says it was cut (a card's URL)
        assert cut or not _is_piece(found.group(), addresses), found.group()
    for url in URL.findall(screen):
        assert url.rstrip("`).,") == good["launchPage"] or "…" in url, url
    for key in shown["keys"]:
        assert key in screen, key
    token = screen.split("@@launch=0", 1)[1].split("@@token=0", 1)[0]
    assert f"    {good['launchPage']}" in token.splitlines(), token  # one line, below its launch
    status = screen.split("@@failed=1", 1)[1].split("@@status=0", 1)[0]
    claims = [line.split()[0] for line in status.splitlines() if line.startswith("claim-")]
    assert [c[-2:] for c in sorted(claims, key=lambda c: c[-1])] == ["-1", "-2", "-3"], status
    for name in shown["names"]:  # an agent's name on one line
        assert name in screen, name

    said = " ".join(screen.replace("│", " ").split())
    assert "refused-launch: failed" in said and "400 Injected failure" in said
    assert "then run it again: launchops launch" in said  # the failed panel says what to run
    assert "explorer none: the sandbox has no explorer" in said
    assert "funding: " in said and "0.25 SOL" in said and "confirmed" in said


def _is_piece(run: str, addresses: list[str]) -> bool:
    """A run of base58 that is a part of an address, not the whole of it."""
    return any(run != a and run in a for a in addresses)
