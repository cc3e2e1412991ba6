"""Python files parsed in a process of their own: one thread, nothing else parsing.

CPython 3.11 keeps the depth of its C-to-Python AST conversion in a counter shared by the
process's threads (and leaves it off after a conversion that failed), so an `ast.parse`
in a test process, whose sandbox threads and Prefect threads may parse too (an
`inspect.signature` of a builtin parses its text signature), can fail with `SystemError:
AST constructor recursion depth mismatch` (CPython gh-106905; seen in CI on 2026-12-06,
`tests/test_layers.py`). The trees come back pickled: unpickling makes each node in
Python, not through that conversion.
"""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path

CHILD = """
import ast, pickle, sys
paths = [line for line in sys.stdin.read().splitlines() if line]
trees = {path: ast.parse(open(path, encoding="utf-8").read(), filename=path) for path in paths}
sys.stdout.buffer.write(pickle.dumps(trees))
"""


def parsed(paths: list[Path]) -> dict[Path, ast.Module]:
    """Each file's tree, as `ast.parse` makes it, by its path."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        input="\n".join(str(path) for path in paths).encode(),
        capture_output=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"parsing {len(paths)} files failed: {done.stderr.decode()[-2000:]}")
    return {Path(path): tree for path, tree in pickle.loads(done.stdout).items()}
