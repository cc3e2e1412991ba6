"""Cold start: median wall time of `launchops --help` (< 0.3 s) and `validate` (< 0.6 s),
and of a command on the embedded sandbox, its start and its stop (`agents list`, < 1 s).

    python bench/cli_startup.py [--runs 21] [--json]

Run by hand, never by CI: these machines are shared and noisy.
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

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
COMMANDS = {
    "launchops --help": (["--help"], 0.3),
    "launchops agents --help": (["agents", "--help"], 0.3),
    "launchops validate (one file)": (["validate", str(ROOT / "configs" / "launchpool.yaml")], 0.6),
    "launchops agents list (sandbox)": (["agents", "list", "--json"], 1.0),
}


def measure(argv: list[str], runs: int, env: dict[str, str]) -> list[float]:
    exe = shutil.which("launchops")
    command = [exe, *argv] if exe else [sys.executable, "-m", "launchops.cli", *argv]
    subprocess.run(command, capture_output=True, check=True, env=env)  # warm the file cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, env=env)
        times.append(time.perf_counter() - started)
    return times


def summary(times: list[float], target: float, runs: int) -> dict[str, float]:
    return {
        "target_s": target,
        "median_s": round(statistics.median(times), 4),
        "min_s": round(min(times), 4),
        "max_s": round(max(times), 4),
        "runs": runs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as home:  # the sandbox profile's chain, kept there
        env = {**os.environ, "LAUNCHOPS_HOME": home}
        for name, (argv, target) in COMMANDS.items():
            results[name] = summary(measure(argv, args.runs, env), target, args.runs)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name, r in results.items():
        verdict = "ok" if r["median_s"] < r["target_s"] else "OVER TARGET"
        spread = f"min {r['min_s']:.3f}, max {r['max_s']:.3f}, n={r['runs']}"
        print(f"{name:<32} median {r['median_s']:.3f} s  ({spread})  {verdict}")


if __name__ == "__main__":
    main()
