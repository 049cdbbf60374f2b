"""What pins a recorded spin to the exact rules that evaluated it: the model file's sha256 and the engine code's sha256.

The spin service writes both into spin.settled; the audit re-derives a spin only with an engine whose pins are equal.
"""

from __future__ import annotations

from typing import Any

# Released before spins carried pins: their recorded spins have none, and that alone is not a finding.
UNPINNED_VERSIONS = frozenset({"rising-joker-v1", "stjernestoev-v1", "stjernestoev-v2"})


def pins(engine: Any) -> dict[str, str]:
    """The fields a spin.settled carries for `engine`."""
    return {"model_sha256": engine.model_sha256, "engine_code_sha256": engine.code_hash}


def pin_problems(recorded: dict[str, str | None], engine: Any, model_version: str) -> list[str]:
    """Why `engine` must not re-derive a spin recorded with these pins (empty when it may)."""
    problems = []
    for name, actual in pins(engine).items():
        value = recorded.get(name)
        if value is None and model_version not in UNPINNED_VERSIONS:
            problems.append(f"{name} missing (model {model_version} is released with pins)")
        elif value is not None and value != actual:
            problems.append(f"{name} {value} recorded, the engine here has {actual}")
    return problems
