"""On any profile `launch` checks its file before any network call: the README's devnet
line with a broken file, its RPC and service unreachable, says the file's problems at
once, through either driver, and never waits on the network."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from tests.support import forks
from tests.support.pipeline import dump_yaml, launch_document
from tests.test_readme_commands import command_lines

[DEVNET] = [line for line, _ in command_lines("Running a launch") if "--profile devnet" in line]


@pytest.mark.parametrize("driver", ["", " --no-prefect"])
def test_a_broken_file_is_refused_before_the_network_is_asked(tmp_path, driver):
    document = {**launch_document("launchpool", "validated-first"), "symbol": "FAR-TOO-LONG-SYMBOL"}
    (tmp_path / "my-token.yaml").write_text(dump_yaml(document))
    env = {
        **os.environ,
        "LAUNCHOPS_HOME": str(tmp_path / "home"),
        "LAUNCHOPS_RPC_URL": "http://127.0.0.1:9",  # nothing listens: any call would wait
        "LAUNCHOPS_BASE_URL": "http://127.0.0.1:9/v1",
        "PREFECT_API_URL": "http://127.0.0.1:9/api",
        "PATH": forks.on_path(os.environ["PATH"]),
    }
    started = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", DEVNET + driver],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "error: my-token.yaml:2: symbol: must be 1 to 10 characters (got 19)"
    ], done.stderr
    assert time.monotonic() - started < 8
