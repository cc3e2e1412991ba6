"""The README's refusals exit 2, one line, before Prefect starts: a funding list that is
not there, a launch key the journal does not know (`status` and `launches status`)."""

from __future__ import annotations

import subprocess
import time

from tests.support.pipeline import no_service_env
from tests.test_readme_commands import command_lines

LINES = [
    (line, exits)
    for section in ("Command line", "Running a launch")
    for line, exits in command_lines(section)
    if "no-such" in line
]


def test_the_readmes_refusals_exit_2_in_one_line(tmp_path):
    env = no_service_env(tmp_path / "home")
    assert len(LINES) == 3, LINES
    for line, exits in LINES:
        started = time.monotonic()
        done = subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
        assert (exits, done.returncode) == (2, 2), (line, done.stderr)
        [error] = done.stderr.splitlines()
        assert error.startswith("error: ") and "no-such" in error, (line, error)
        assert time.monotonic() - started < 10, line  # no Prefect server started, no retries
