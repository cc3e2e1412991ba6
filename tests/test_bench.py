"""The benchmarks under `bench/` are run by hand, never by CI, so nothing else notices when
a change to the suite's helpers breaks one: each must at least import (a helper moved
once left two failing at import, `--help` included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_benchmark_imports():
    modules = sorted(f"bench.{path.stem}" for path in (ROOT / "bench").glob("[!_]*.py"))
    assert len(modules) >= 10, modules
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)"
    done = subprocess.run(
        [sys.executable, "-c", code, *modules], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
