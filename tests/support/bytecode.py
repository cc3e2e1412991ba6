"""pytest's rewritten modules cached, even where PYTHONDONTWRITEBYTECODE is set.

pytest rewrites the asserts of every test module and of its plugins' packages
(schemathesis, hypothesis, anyio: ~400 modules) as it imports them, and keeps the result
in `__pycache__` only when `sys.dont_write_bytecode` is false. Where the machine sets
PYTHONDONTWRITEBYTECODE (CI's does), each of the suite's five pytest processes rewrote
them all again on every run: ~3 s of CPU each (`python -m pytest --collect-only -n 0`:
9.5 -> 6.1 s). Loaded with `-p` (pyproject's addopts), so before the plugins pytest finds
by their entry points: the hook reads the flag as it imports each one.
"""

import sys

sys.dont_write_bytecode = False
