"""`reelstream bench ...`: each benchmark lives in bench/<name>.py and exposes a typer `command`; loaded by name,
so the CLI stands below the benches and an image without bench/ has no bench commands."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(no_args_is_help=True)

_BENCHES = (
    "kafka",
    "math",
    "wallet",
    "jackpot",
    "spins",
    "projector",
    "monitor",
    "brokers",
    "recovery",
    "skew",
    "seamless",
)

for _name in _BENCHES:
    _module_name = f"bench.{_name}"
    try:
        _module = importlib.import_module(_module_name)
    except ModuleNotFoundError as _error:
        if _error.name not in (_module_name, "bench"):
            raise
        continue
    _help = (_module.__doc__ or "").strip().splitlines()[0] if _module.__doc__ else None
    app.command(_name, help=_help)(_module.command)
