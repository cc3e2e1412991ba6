"""The documentation as a reader meets it: README.md and the site under docs/.

Every fenced block with a language (`bash`, `python`, `yaml`) runs in a test, and CLAIMS
says which: each section holding one is claimed by the test module that reads that
section (by its title) and runs it. A block without a language is what a command prints.
The site builds with `mkdocs build --strict`: no broken link, no missing reference.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib

import yaml

from tests.support import docs
from tests.support.pipeline import embedded_env, launchops, run_python

ROOT = docs.ROOT
THIS = "tests/test_docs.py"
COMMANDS = "tests/test_readme_commands.py"
AFTER = "tests/after/test_after_readme_commands.py"
# Each section with a block to run, and the test module that reads and runs it.
CLAIMS = {
    "launchops": THIS,  # README's two commands
    "Getting started": THIS,  # the same two commands
    "What it does": COMMANDS,
    "Documentation": THIS,
    "Command line": COMMANDS,
    "Launch files": THIS,  # the YAML; its shell block: COMMANDS too
    "Running a launch": COMMANDS,
    "Batches": COMMANDS,
    "Registration retry": COMMANDS,
    "Schedules and several workers": COMMANDS,
    "Running on several machines": "tests/workers/test_readme_machines.py",
    "After the launch: agents, creator rewards, launch status": AFTER,
    "Using launchops from Python": "tests/test_readme_python.py",
    "The client library": THIS,
    "Landing on a busy cluster": "tests/test_readme_landing.py",
    "The sandbox": THIS,  # its Python; its shell block: COMMANDS
    "Development": THIS,
}


def _sections_with_code() -> list[tuple[str, str]]:
    """`(page, section title)` of every section holding a block with a language."""
    found = []
    for page in docs.pages():
        text = page.read_text()
        marks = docs.headings(text)
        lines = text.splitlines(keepends=True)
        for at, (number, _, title) in enumerate(marks):
            end = marks[at + 1][0] if at + 1 < len(marks) else len(lines)
            if any(re.match(r"```\w+", line) for line in lines[number + 1 : end]):
                found.append((page.relative_to(ROOT).as_posix(), title))
    return found


def test_every_code_block_is_run_by_a_test():
    unclaimed = [(page, title) for page, title in _sections_with_code() if title not in CLAIMS]
    assert unclaimed == [], "claim each in CLAIMS with the test that runs it"
    for title, module in CLAIMS.items():
        assert title in (ROOT / module).read_text(), (title, module)  # it reads the section
        docs.section(title)  # and the section is there


def test_the_site_builds_strict(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "library" / "index.html").exists()
    [block] = docs.blocks(docs.section("Documentation"), "bash")
    assert "mkdocs build --strict" in block and ".[docs]" in block


def _two_commands() -> tuple[list[str], list[str]]:
    [readme] = docs.blocks(docs.section("launchops"), "bash")
    [started] = docs.blocks(docs.section("Getting started"), "bash")
    assert started == readme  # the site's first page gives the README's commands
    first, second = [line for line in readme.splitlines() if line and not line.startswith("#")]
    return re.split(r" && (?![^(]*\))", first), re.split(r" && (?![^(]*\))", second)


def test_the_test_command_is_what_ci_runs():
    """The README's test command and the Development block are what `.ci/run` runs."""
    ci = (ROOT / ".ci" / "run").read_text()
    _, test_command = _two_commands()
    assert test_command == [
        'pip install -e ".[dev]"',
        "(cd tests/interop/js && npm ci)",
        "python -m pytest",
    ]
    assert 'pip install --quiet -e ".[dev]"' in ci and "npm ci" in ci
    assert re.search(r"^python -m pytest\b", ci, re.M)
    [development] = docs.blocks(docs.section("Development"), "bash")
    halves = []
    for line in development.splitlines():
        command = line.partition("  #")[0].strip()
        if command.startswith("ruff"):
            assert all(part.strip() in ci for part in command.split("&&")), command
        elif command.startswith("python -m pytest -m "):
            halves.append(shlex.split(command)[-1])
        elif command:
            assert command in test_command, command
    # The two halves are the whole suite split by the `prefect` marker CI selects on.
    assert halves == ["not prefect", "prefect"], halves
    assert re.search(r"^\S*python -m pytest .*-m prefect\b", ci, re.M)
    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert any(m.startswith("prefect:") for m in markers["ini_options"]["markers"])


def test_the_first_launch_runs_as_written(tmp_path, prefect_env):
    """README's first command on a machine with nothing running: the launch registers,
    and run again it is reported from the journal."""
    install, _ = _two_commands()
    *setup, command = install
    assert setup == ["python3 -m venv .venv", ". .venv/bin/activate", "pip install -e ."]
    env = embedded_env(tmp_path / "home", **prefect_env)
    assert command == "launchops launch configs/launchpool.yaml"
    for _ in range(2):
        done = launchops(env, *shlex.split(command)[1:], "--json")
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert '"state": "registered"' in done.stdout


def test_the_client_library_runs_as_written(sandbox_factory):
    sandbox = sandbox_factory(slot_ms=50, seed_agents=3, seed=8004)
    [block] = docs.blocks(docs.section("The client library"), "python")
    script = block.replace("http://127.0.0.1:8899/v1", sandbox.base_url)
    out = run_python(script, dict(os.environ))
    assert "bytes to sign" in out and re.search(r"\b\d+ transactions\b", out), out
    assert "not found" in out, out


def test_the_sandbox_python_runs_as_written(tmp_path):
    in_python, in_conftest = docs.blocks(docs.section("The sandbox"), "python")
    script = in_python.replace("...", "print('up', sandbox.base_url, sandbox.rpc_url)")
    script += (
        "\n"
        + in_conftest
        + "\nimport importlib; [importlib.import_module(p) for p in pytest_plugins]\n"
    )
    assert "up http://127.0.0.1:" in run_python(script, dict(os.environ))


def test_the_launch_file_examples_validate(tmp_path):
    """The launch file of "Launch files", its placeholders filled, and its agent form."""
    example, agent = docs.blocks(docs.section("Launch files"), "yaml")
    filled = (
        example.replace("<id>", "my-token")
        .replace("description: ...", "description: My token.")
        .replace("lockedAllocations: [...]", "lockedAllocations: []")
    )
    document = yaml.safe_load(filled)
    (tmp_path / "my-token.yaml").write_text(filled)
    with_agent = {**document, **yaml.safe_load(agent.replace("<the agent's asset>", str(_key())))}
    with_agent["id"] = "my-agent-token"
    (tmp_path / "agent-token.yaml").write_text(yaml.safe_dump(with_agent, sort_keys=False))
    env = {**os.environ, "LAUNCHOPS_HOME": str(tmp_path / "home"), "FUNDS_RECIPIENT": str(_key())}
    for name in ("my-token.yaml", "agent-token.yaml"):
        done = launchops(env, "validate", str(tmp_path / name))
        assert done.returncode == 0, done.stdout + done.stderr


def _key() -> object:
    from solders.keypair import Keypair

    return Keypair().pubkey()


def test_the_readme_links_every_page():
    readme = (ROOT / "README.md").read_text()
    linked = set(re.findall(r"\]\((docs/[\w/-]+\.md)\)", readme))
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    assert pages - {"docs/index.md"} <= linked, pages - linked
    assert all((ROOT / page).exists() for page in linked)
    assert len(readme.splitlines()) <= 160
