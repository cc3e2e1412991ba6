"""Where the suite's CPU goes: each test's CPU time (its pytest process's, and the child
processes it started and waited for), summed by module.

    python -m pytest -p bench.suite_cpu          # writes .suite-cpu/<pid>.jsonl, one a process
    python bench/suite_cpu.py [--top 30]         # the modules, most CPU first
    python bench/suite_cpu.py --marker prefect   # the tests with the marker, and the rest

The suite is bound by its CPU on two cores, so CPU seconds, not wall seconds, say what a
change saves of it; and by the Prefect tests' waits, which `--marker prefect` shows. A
process that outlives its test (a module's Prefect server) is counted when it is reaped:
in the test that tears its fixture down. A command forked by the suite's fork server
(tests/support/forks.py) is counted in the test that waited for it, as a child is.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

OUT = Path(os.environ.get("SUITE_CPU_DIR", ".suite-cpu"))


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    forks = sys.modules.get("tests.support.forks")  # commands forked by the fork server
    forked = forks.reaped_cpu() if forks is not None else 0.0
    return own.ru_utime + own.ru_stime, reaped.ru_utime + reaped.ru_stime + forked


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    own, reaped = _cpu()
    started = time.monotonic()
    yield
    own_after, reaped_after = _cpu()
    row = {
        "id": item.nodeid.split("@")[0],
        "wall": time.monotonic() - started,
        "own": own_after - own,
        "children": reaped_after - reaped,
        "markers": sorted({mark.name for mark in item.iter_markers()}),
    }
    OUT.mkdir(exist_ok=True)
    with (OUT / f"{os.getpid()}.jsonl").open("a") as out:
        out.write(json.dumps(row) + "\n")


def by_module(rows: list[dict[str, Any]]) -> list[tuple[str, dict[str, float]]]:
    modules: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in rows:
        module = modules[row["id"].split("::")[0]]
        for what in ("own", "children", "wall"):
            module[what] += row[what]
        module["tests"] += 1
    return sorted(modules.items(), key=lambda kv: -(kv[1]["own"] + kv[1]["children"]))


def by_marker(rows: list[dict[str, Any]], marker: str) -> None:
    """The tests with `marker` and the others: how many, their wall and their CPU summed
    (a part's wall summed, over the suite's processes, is the least that part can take)."""
    print(f"{'tests':>5} {'wall s':>7} {'CPU s':>7}  marked {marker!r}")
    for marked in (True, False):
        part = [row for row in rows if (marker in row.get("markers", ())) is marked]
        wall = sum(row["wall"] for row in part)
        cpu = sum(row["own"] + row["children"] for row in part)
        print(f"{len(part):5d} {wall:7.0f} {cpu:7.0f}  {'yes' if marked else 'no'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--marker", help="split the tests by this marker instead")
    args = parser.parse_args()
    rows = [json.loads(line) for path in OUT.glob("*.jsonl") for line in path.open()]
    if not rows:
        raise SystemExit(f"no rows in {OUT}/: run python -m pytest -p bench.suite_cpu first")
    total = sum(row["own"] + row["children"] for row in rows)
    print(f"{len(rows)} tests, {total:.0f} s of CPU")
    if args.marker:
        return by_marker(rows, args.marker)
    print(f"{'CPU s':>7} {'own':>6} {'children':>8} {'wall s':>7} {'tests':>5}  module")
    for name, m in by_module(rows)[: args.top]:
        cpu = m["own"] + m["children"]
        print(
            f"{cpu:7.1f} {m['own']:6.1f} {m['children']:8.1f} {m['wall']:7.1f} "
            f"{int(m['tests']):5d}  {name}"
        )


if __name__ == "__main__":
    main()
