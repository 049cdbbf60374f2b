"""The logic's CPU per settled spin of this tree against a base commit: alternated runs of each commit's own
`bench-saga-cpu` harness (medians of its rounds), medians over the pairs, and the ratio this tree / base."""

# Each commit is measured by the harness it shipped with (at dda066f, `reelstream.bench.saga_cpu`; here,
# `bench.saga_cpu`): both feed each service's record handling the others' real bytes, bytes in and records out. The
# base runs from a detached worktree with this tree's virtualenv (its pins are the base's but for later additions).
# Runs alternate base, this, base, this... so a machine that slows down during the work slows both alike.

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PARTS = ("spin request", "wallet", "spin wallet facts", "jackpot", "total")
_HARNESSES = ("reelstream.bench.saga_cpu", "bench.saga_cpu")  # the module each generation of the tree ships
_RUN = (
    "import json, sys; sys.path.insert(0, '.'); import importlib; "
    "print(json.dumps(importlib.import_module(sys.argv[1]).measure()))"
)


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _harness(tree: Path) -> str:
    """The saga-CPU module of the tree at `tree` (the newer layout first)."""
    for module in reversed(_HARNESSES):
        if (tree / (module.replace(".", "/") + ".py")).is_file():
            return module
    raise SystemExit(f"{tree} has no saga-CPU harness ({', '.join(_HARNESSES)})")


def _measure(tree: Path) -> dict[str, float]:
    """One run of the tree's own harness in a fresh interpreter (its medians over its rounds, µs a settled spin)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN, _harness(tree)], cwd=tree, env=env, check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {part: round(statistics.median(run[part] for run in runs), 1) for part in PARTS}


def ratios(this: dict[str, float], base: dict[str, float]) -> dict[str, float]:
    return {part: round(this[part] / base[part], 3) for part in PARTS}


def compare(base: str, pairs: int, progress: Any = None) -> dict[str, Any]:
    """`pairs` alternated runs of `base` and this tree; the medians, their ratio and every run."""
    progress = progress or (lambda line: print(line, flush=True))
    head = _git("rev-parse", "--short", "HEAD")
    started = time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())
    runs: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
    loads: list[float] = []
    with tempfile.TemporaryDirectory(prefix="cpu-pairs-") as scratch:
        worktree = Path(scratch) / "base"
        _git("worktree", "add", "--detach", str(worktree), base)
        try:
            for n in range(pairs):
                for side, tree in (("base", worktree), ("this", ROOT)):
                    loads.append(os.getloadavg()[0])
                    started = time.monotonic()
                    runs[side].append(_measure(tree))
                    took = time.monotonic() - started
                    progress(f"pair {n + 1}/{pairs} {side}: {runs[side][-1]['total']:.1f} µs a spin ({took:.0f} s)")
        finally:
            _git("worktree", "remove", "--force", str(worktree))
    found = {"base": medians(runs["base"]), "this": medians(runs["this"])}
    return {
        "what": "alternated pairs of each commit's own bench-saga-cpu harness (5 rounds of 2,000 settled spins a "
        "run, its medians), medians over the pairs; records unsigned",
        "base": base,
        "this": head,
        "pairs": pairs,
        "medians": found,
        "ratio_this_over_base": ratios(found["this"], found["base"]),
        "us_per_spin": {"total": found["this"]["total"]},
        "runs": runs,
        "load_average_before_each": [round(load, 2) for load in loads],
        "provenance": {
            "date": started,
            "commit": head,
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="dda066f", help="the commit to compare with (default: dda066f)")
    parser.add_argument("--pairs", type=int, default=3, help="alternated pairs of runs (default 3)")
    parser.add_argument("--out", help="write the figures as JSON here too")
    args = parser.parse_args()
    if not 1 <= args.pairs <= 50:
        parser.error("--pairs must be between 1 and 50")
    result = compare(args.base, args.pairs)
    print(f"µs a settled spin, medians of {args.pairs} alternated pairs ({args.base} / {result['this']}):")
    for part in PARTS:
        base, this = result["medians"]["base"][part], result["medians"]["this"][part]
        print(f"  {part:20s} {base:8.1f} {this:8.1f}  ratio {result['ratio_this_over_base'][part]:.3f}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
