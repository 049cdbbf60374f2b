"""Math engine benchmarks: each game's figures as ratios against a trivial reference loop measured in the same run."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import typer

_GAME_MODULES = ("mathtools.rising_joker", "mathtools.stjernestoev")


def command(
    out: Path = typer.Option(Path("bench-results/math.json"), help="Where to write the JSON results."),
    quick: bool = typer.Option(False, help="Smaller workloads (for a smoke run)."),
) -> None:
    """Full-cycle enumeration and Monte Carlo speed per game, with ratios against reference loops."""
    results = {}
    for module_name in _GAME_MODULES:
        module = importlib.import_module(module_name)
        # Each game's bench() prints its own table and returns its figures as a JSON-ready dict.
        results[module_name.rsplit(".", 1)[1]] = module.bench(quick=quick)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True))
    typer.echo(f"wrote {out}")
