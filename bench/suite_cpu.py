"""Where the suite's CPU goes: each test's CPU time (its pytest process's, and the child
processes it started and waited for), summed by module.

    python -m pytest -p bench.suite_cpu          # writes .suite-cpu/<pid>.jsonl, one a process
    python bench/suite_cpu.py [--top 30]         # the modules, most CPU first
    python bench/suite_cpu.py --marker prefect   # the tests with the marker, and the rest
    python bench/suite_cpu.py --processes        # each process's span: which one ends last
    python bench/suite_cpu.py --forks            # the forked commands, by kind

The suite is bound by its CPU on two cores, so CPU seconds, not wall seconds, say what a
change saves of it; and by the Prefect tests' waits, which `--marker prefect` shows. A
process that outlives its test (a module's Prefect server) is counted when it is reaped:
in the test that tears its fixture down. A command forked by the suite's fork server
(tests/support/forks.py) is counted in the test that waited for it, as a child is; and
the fork server writes each one's CPU, by kind (`launchops deploy`, `prefect server
start`), to .suite-cpu/forks.rows: a Prefect server that outlives its test shows there
as what it is.
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
FORKS = OUT / "forks.rows"
# Read by the fork server, which the suite's first process starts after this is imported.
os.environ.setdefault("LAUNCHOPS_FORKS_CPU_ROWS", str(FORKS.resolve()))


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
        "start": time.time() - (time.monotonic() - started),
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


def by_process(rows_by_process: dict[str, list[dict[str, Any]]]) -> None:
    """Each of the suite's processes: when its tests began and ended (seconds from the
    suite's first test), its CPU, and its longest tests; the last to end is the tail."""
    begin = min(row["start"] for rows in rows_by_process.values() for row in rows)
    print(f"{'from':>5} {'to':>5} {'CPU s':>6} {'tests':>5}  longest tests")
    ends = []
    for rows in rows_by_process.values():
        first = min(row["start"] for row in rows) - begin
        last = max(row["start"] + row["wall"] for row in rows) - begin
        ends.append((last, first, rows))
    for last, first, rows in sorted(ends, key=lambda end: end[0]):
        cpu = sum(row["own"] + row["children"] for row in rows)
        longest = sorted(rows, key=lambda row: -row["wall"])[:3]
        names = ", ".join(f"{r['id'].split('::')[-1][:40]} {r['wall']:.0f}s" for r in longest)
        print(f"{first:5.0f} {last:5.0f} {cpu:6.0f} {len(rows):5d}  {names}")


def by_fork() -> None:
    """The commands the fork server ran, by kind: how many, their CPU summed and each."""
    kinds: dict[str, list[float]] = defaultdict(list)
    for line in FORKS.open() if FORKS.exists() else ():
        row = json.loads(line)
        kinds[row["command"]].append(row["cpu"])
    total = sum(sum(cpus) for cpus in kinds.values())
    print(f"{sum(map(len, kinds.values()))} forked commands, {total:.0f} s of CPU")
    print(f"{'CPU s':>7} {'count':>5} {'each':>6}  command")
    for kind, cpus in sorted(kinds.items(), key=lambda kv: -sum(kv[1])):
        print(f"{sum(cpus):7.1f} {len(cpus):5d} {sum(cpus) / len(cpus):6.2f}  {kind}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--marker", help="split the tests by this marker instead")
    parser.add_argument("--processes", action="store_true", help="each process's span")
    parser.add_argument("--forks", action="store_true", help="the forked commands, by kind")
    args = parser.parse_args()
    if args.forks:
        return by_fork()
    rows_by_process = {
        path.stem: [json.loads(line) for line in path.open()] for path in OUT.glob("*.jsonl")
    }
    rows = [row for process in rows_by_process.values() for row in process]
    if not rows:
        raise SystemExit(f"no rows in {OUT}/: run python -m pytest -p bench.suite_cpu first")
    total = sum(row["own"] + row["children"] for row in rows)
    print(f"{len(rows)} tests, {total:.0f} s of CPU")
    if args.marker:
        return by_marker(rows, args.marker)
    if args.processes:
        return by_process(rows_by_process)
    print(f"{'CPU s':>7} {'own':>6} {'children':>8} {'wall s':>7} {'tests':>5}  module")
    for name, m in by_module(rows)[: args.top]:
        cpu = m["own"] + m["children"]
        print(
            f"{cpu:7.1f} {m['own']:6.1f} {m['children']:8.1f} {m['wall']:7.1f} "
            f"{int(m['tests']):5d}  {name}"
        )


if __name__ == "__main__":
    main()
