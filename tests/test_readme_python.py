"""The README's Python, run as written: the library example of "Using launchops from
Python" against the sandbox the sandbox profile starts, then the Prefect flow example
(a flow of the user's calling launchops' launch flow) on the session's Prefect server,
as a user with a server configured runs it (the command line's temporary server, for a
user with none, is tests/cli/test_temporary_server.py's)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.support import docs
from tests.support.pipeline import embedded_env, run_python

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(section: str) -> list[str]:
    return docs.blocks(docs.section(section), "python")


def test_the_library_section_runs_as_written(tmp_path, prefect_env):
    library, own_flow = python_blocks("Using launchops from Python")
    script = "\n".join(
        [
            library,
            own_flow,
            "import asyncio",
            "page = asyncio.run(weekly_launch('configs/launchpool.yaml'))",
            "assert page == result.launch_page, (page, result)",
            "print('README OK', result.state, page)",
        ]
    )
    env = embedded_env(tmp_path / "home", **prefect_env)
    out = run_python(textwrap.dedent(script), env)
    assert "README OK registered" in out, out[-2000:]
