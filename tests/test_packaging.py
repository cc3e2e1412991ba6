"""The distribution as pip installs it: launchops, with its flows and tasks inside
(`launchops.flows`, `launchops.tasks`), and no top-level `flows` or `tasks` to collide
with another distribution's; typed (`py.typed`)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_holds_one_top_level_package(tmp_path):
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    [wheel] = tmp_path.glob("launchops-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {
        name.split("/", 1)[0] for name in names if not name.split("/", 1)[0].endswith(".dist-info")
    }
    assert tops == {"launchops"}, tops
    assert "launchops/flows/batch.py" in names and "launchops/tasks/context.py" in names
    assert "launchops/py.typed" in names


def test_flows_and_tasks_import_inside_the_package():
    import launchops.flows.launch
    import launchops.tasks

    assert launchops.flows.launch.launch_flow.name == "launch"
    assert hasattr(launchops.tasks, "STEP_TASKS")
