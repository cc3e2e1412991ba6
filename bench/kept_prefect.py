"""A launch through Prefect once the local Prefect server is up, against the same launch
with `--no-prefect`: whole commands, one state folder, the embedded sandbox, alternating.

    python bench/kept_prefect.py [--rounds 5] [--json]

The first command through Prefect starts the local server (its time is printed apart);
each round then launches one new file through Prefect and one with `--no-prefect`, and
the medians' ratio is the cost of Prefect once its start is paid (the goal: 1.5x at
most). Then a finished launch asked again through Prefect (answered from the journal).
Run by hand, never by CI, on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _file(folder: Path, key: str) -> Path:
    text = (ROOT / "configs" / "launchpool.yaml").read_text()
    lines = [f"id: {key}" if line.startswith("id:") else line for line in text.splitlines()]
    path = folder / f"{key}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _timed(env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "launchops.cli", *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"launchops {' '.join(args)} failed: {done.stderr[-800:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="launchops-bench-kept-"))
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(LAUNCHOPS_HOME=str(home / "home"), PREFECT_HOME=str(home / "prefect"))
    env.pop("LAUNCHOPS_PREFECT_SERVER", None)
    try:
        first = _timed(env, "launch", str(_file(home, "kept-first")))
        prefect, plain = [], []
        for n in range(args.rounds):
            prefect.append(_timed(env, "launch", str(_file(home, f"kept-p{n}"))))
            plain.append(_timed(env, "launch", str(_file(home, f"kept-n{n}")), "--no-prefect"))
        again = _timed(env, "launch", str(_file(home, "kept-p0")))
        subprocess.run(
            [sys.executable, "-m", "launchops.cli", "prefect", "stop"],
            env=env,
            capture_output=True,
            check=False,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    result = {
        "first_with_start_s": round(first, 2),
        "prefect_median_s": round(statistics.median(prefect), 2),
        "no_prefect_median_s": round(statistics.median(plain), 2),
        "ratio": round(statistics.median(prefect) / statistics.median(plain), 2),
        "finished_again_s": round(again, 2),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
