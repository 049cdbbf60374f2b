"""`reelstream bench ...`: each benchmark lives in reelstream/bench/<name>.py and exposes a typer `command`."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(no_args_is_help=True)

_BENCHES = ("kafka", "math", "wallet", "jackpot", "spins", "projector", "monitor", "brokers", "recovery")

for _name in _BENCHES:
    _module_name = f"reelstream.bench.{_name}"
    try:
        _module = importlib.import_module(_module_name)
    except ModuleNotFoundError as _error:
        if _error.name != _module_name:
            raise
        continue
    _help = (_module.__doc__ or "").strip().splitlines()[0] if _module.__doc__ else None
    app.command(_name, help=_help)(_module.command)
