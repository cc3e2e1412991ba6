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


def test_a_finished_launch_resume_and_an_idle_retry_answer_without_prefect(
    sandbox_factory, tmp_path, prefect_env
):
    """Nothing to run, nothing started: a finished launch run again (and resumed) through
    the Prefect driver answers from the journal without asking Prefect anything (here its
    API is an address nothing listens at), the same as a run that starts it would."""
    sandbox = sandbox_factory(slot_ms=50)
    work, env = workspace(sandbox, tmp_path, **prefect_env)

    def command(line: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=work,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, (line, done.stderr[-2000:])
        return done

    launched = json.loads(command(FIRST + " --no-prefect --json", env).stdout)
    nowhere = {**env, "PREFECT_API_URL": "http://127.0.0.1:9/api"}
    for line in (FIRST, f"launchops resume {launched['key']}"):
        answer = json.loads(command(line + " --json", nowhere).stdout)
        assert answer["fromJournal"] is True and answer["state"] == "registered"
        assert answer["mint"] == launched["mint"]
    retried = command("launchops registrations retry --json", nowhere)
    assert json.loads(retried.stdout)["launches"] == []  # nothing to retry: no flow run
