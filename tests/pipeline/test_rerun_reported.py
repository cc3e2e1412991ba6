"""The README's first command run again: the finished launch is reported from the journal,
and says so (the panel's title, `fromJournal` in the JSON, `from_journal` in Python)."""

from __future__ import annotations

import json
import subprocess

from tests.support.pipeline import run_python, workspace
from tests.test_readme_commands import ROOT

README = (ROOT / "README.md").read_text()
FIRST = next(
    line.split("&& ")[-1]
    for line in README.split("```bash\n", 1)[1].splitlines()
    if "launchops launch configs/launchpool.yaml" in line
)


def test_a_rerun_says_it_came_from_the_journal(sandbox_factory, tmp_path, prefect_env):
    sandbox = sandbox_factory(slot_ms=50)
    work, env = workspace(sandbox, tmp_path, **prefect_env)
    env["COLUMNS"] = "100"
    assert FIRST == "launchops launch configs/launchpool.yaml", FIRST

    def run(command: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (command, done.stderr[-2000:])
        return done

    first = run(FIRST)
    assert "launched" in first.stdout and "from the journal" not in first.stdout, first.stdout
    again = run(FIRST)
    assert "already registered, from the journal" in again.stdout, again.stdout
    assert json.loads(run(FIRST + " --no-prefect --json").stdout)["fromJournal"] is True
    script = (
        "import launchops\n"
        "again = launchops.launch_sync('configs/launchpool.yaml')\n"
        "print(again.from_journal, again.to_json()['fromJournal'])\n"
    )
    assert run_python(script, {**env}).split() == ["True", "True"]
