"""Where a command's CPU goes by process: every Python process it starts (pytest's own,
the Prefect servers, workers and flow-run processes, each `launchops` command) writes its
CPU time and command line when it exits, and the rows are summed by kind.

    python bench/process_cpu.py -- python -m pytest -p no:cacheprovider   # run, then sum
    python bench/process_cpu.py --rows .process-cpu [--top 40] [--json]    # sum again
    python bench/process_cpu.py --prefect-tests -- python -m pytest -m "not prefect"

`bench/suite_cpu.py` says which tests cost the most; this says which processes: whether
the CPU is in the tests' own processes, in Prefect servers, or in the commands they run.
How: a `sitecustomize` module first on PYTHONPATH (in the rows' folder), which every
Python process started with that environment imports; at exit, or on a SIGTERM that the
process does not handle itself, it writes one JSON row. A process killed with SIGKILL
(the crash matrices' killed runs) writes none, so the sum is a little short of the
whole. `--prefect-tests` lists instead the tests whose processes served Prefect's API or
ran a flow (each row names the test it ran for): under `-m "not prefect"`, a test listed
is one the `prefect` marker (tests/conftest.py) misses. A `sitecustomize` the
environment already has still runs: this one runs it after its own. Run by hand, never
by CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

SITECUSTOMIZE = '''"""Written by bench/process_cpu.py: this process's CPU and argv, at exit."""
import atexit as _atexit, json as _json, os as _os, resource as _resource, signal as _signal
import sys as _sys


def _record():
    usage = _resource.getrusage(_resource.RUSAGE_SELF)
    row = {
        "argv": _sys.argv[:8],
        "cpu": usage.ru_utime + usage.ru_stime,
        "pytest": "_pytest.main" in _sys.modules,
        # The test it ran for (pytest sets this in the environment its children inherit),
        # and whether it served Prefect's API or ran a flow.
        "test": _os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0] or None,
        "prefect": "prefect.server.api.server" in _sys.modules
        or "prefect.flow_engine" in _sys.modules,
    }
    path = _os.path.join(_os.environ["PROCESS_CPU_DIR"], f"{_os.getpid()}.json")
    try:
        with open(path, "w") as out:
            _json.dump(row, out)
    except OSError:
        pass


def _on_term(signum, frame):
    _record()
    _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
    _os.kill(_os.getpid(), _signal.SIGTERM)


def _chain():
    """Run the sitecustomize this one hides (the environment's own), if there is one."""
    import importlib.machinery as _machinery, importlib.util as _util

    here = _os.path.dirname(_os.path.abspath(__file__))
    rest = [p for p in _sys.path if _os.path.abspath(p or ".") != here]
    spec = _machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        spec.loader.exec_module(_util.module_from_spec(spec))


if _os.environ.get("PROCESS_CPU_DIR"):
    _atexit.register(_record)
    if _signal.getsignal(_signal.SIGTERM) == _signal.SIG_DFL:
        _signal.signal(_signal.SIGTERM, _on_term)
_chain()
'''

# (what a command line holds, the kind it is): the first that matches.
KINDS = (
    ("tests/support/forkserver", "the suite's fork server (its preload)"),
    ("-m uvicorn", "Prefect test server (prefect_test_harness)"),
    ("uvicorn/__main__", "Prefect test server (prefect_test_harness)"),
    ("server start", "Prefect server (prefect server start)"),
    ("cli/prefect_server", "temporary Prefect server (launchops)"),
    ("prefect/engine", "flow-run process (started by a worker)"),
    ("worker start", "Prefect worker"),
)


def kind(row: dict[str, Any]) -> str:
    argv = row["argv"]
    line = " ".join(argv)
    if row.get("pytest"):
        return "pytest (the tests' own processes)"
    for needle, name in KINDS:
        if needle in line:
            return name
    if "launchops" in line and ("cli/__main__" in line or line.split()[0].endswith("launchops")):
        command = next((a for a in argv[1:] if not a.startswith("-")), "")
        return f"launchops {command}".strip()
    if "prefect" in line and ("prefect/__main__" in line or line.split()[0].endswith("prefect")):
        return "prefect " + " ".join(a for a in argv[1:3] if not a.startswith("-"))
    return "other Python"


def summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    kinds: dict[str, dict[str, float]] = defaultdict(lambda: {"processes": 0, "cpu": 0.0})
    for row in rows:
        entry = kinds[kind(row)]
        entry["processes"] += 1
        entry["cpu"] += row["cpu"]
    ordered = sorted(kinds.items(), key=lambda item: -item[1]["cpu"])
    return [{"kind": name, **entry} for name, entry in ordered]


def prefect_tests(rows: list[dict[str, Any]]) -> list[str]:
    """The tests whose child processes served Prefect's API or ran a Prefect flow: run
    under `-m "not prefect"`, any test listed is one the `prefect` marker misses."""
    return sorted({row["test"] for row in rows if row.get("prefect") and row.get("test")})


def read(folder: Path) -> list[dict[str, Any]]:
    rows = []
    for path in folder.glob("*.json"):
        try:
            rows.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue  # a process that died while writing its row
    return rows


def run(folder: Path, command: list[str], fresh: bool = False) -> int:
    """`command` with every Python process it starts writing its row; `fresh`: the
    suite's commands started as new processes, not forked by its fork server (a forked
    command has Prefect's server imported already, which would mark every one of them as
    Prefect's)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "PROCESS_CPU_DIR": str(folder.resolve())}
    if fresh:
        env["LAUNCHOPS_TESTS_FRESH"] = "1"
    return subprocess.run(command, env=env).returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, default=Path(".process-cpu"))
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--prefect-tests",
        action="store_true",
        help="list the tests whose processes served Prefect or ran a flow, not the sums",
    )
    parser.add_argument("command", nargs="*", help="the command to run (after --)")
    args = parser.parse_args()
    code = run(args.rows, args.command, fresh=args.prefect_tests) if args.command else 0
    rows = read(args.rows)
    if args.prefect_tests:
        found = prefect_tests(rows)
        print(json.dumps(found, indent=2) if args.json else "\n".join(found))
        sys.exit(code)
    kinds = summary(rows)
    if args.json:
        print(json.dumps(kinds, indent=2))
    else:
        total = sum(k["cpu"] for k in kinds)
        count = sum(k["processes"] for k in kinds)
        print(f"{count} Python processes, {total:.0f} s of CPU")
        print(f"{'CPU s':>8} {'share':>6} {'procs':>6} {'each':>6}  kind")
        for k in kinds[: args.top]:
            share, each = k["cpu"] / total * 100, k["cpu"] / k["processes"]
            print(f"{k['cpu']:8.1f} {share:5.1f}% {k['processes']:6d} {each:6.2f}  {k['kind']}")
    sys.exit(code)


if __name__ == "__main__":
    main()
