"""What pins a recorded spin to the exact rules that evaluated and paid it: the model file's sha256 and the game's
outcome manifest hash (games/manifest.py).

The spin service writes both into spin.settled; the audit re-derives a spin only with an engine whose pins are equal.
Spins settled before the manifest carry the sha256 of every games/ source instead (`engine_code_sha256`): those are
equal when a tree of the project's history with that engine code had today's manifest (games/released-engines.json).
"""

from __future__ import annotations

from typing import Any

from games import manifest

# Released before spins carried pins: their recorded spins have none, and that alone is not a finding.
UNPINNED_VERSIONS = frozenset({"rising-joker-v1", "stjernestoev-v1", "stjernestoev-v2"})


def manifest_of(engine: Any) -> str:
    """The outcome manifest hash of the code `engine` runs (a stand-in engine of a benchmark names its own)."""
    own = getattr(engine, "outcome_manifest_sha256", None)
    return own or manifest.outcome_manifest_sha256(engine.game, engine.model_version)


def pins(engine: Any) -> dict[str, str]:
    """The fields a spin.settled carries for `engine`."""
    return {"model_sha256": engine.model_sha256, "outcome_manifest_sha256": manifest_of(engine)}


def pin_problems(
    recorded: dict[str, str | None],
    engine: Any,
    model_version: str,
    released: dict[tuple[str, str], frozenset[str]] | None = None,
) -> list[str]:
    """Why `engine` must not re-derive a spin recorded with these pins (empty when it may)."""
    problems = []
    model = recorded.get("model_sha256")
    if model is None and model_version not in UNPINNED_VERSIONS:
        problems.append(f"model_sha256 missing (model {model_version} is released with pins)")
    elif model is not None and model != engine.model_sha256:
        problems.append(f"model_sha256 {model} recorded, the engine here has {engine.model_sha256}")
    here = manifest_of(engine)
    pinned, engine_code = recorded.get("outcome_manifest_sha256"), recorded.get("engine_code_sha256")
    if pinned is not None:
        if pinned != here:
            problems.append(f"outcome_manifest_sha256 {pinned} recorded, the code here has {here}")
    elif engine_code is not None:
        known = (manifest.released() if released is None else released).get((model_version, engine_code))
        if known is None:
            problems.append(f"engine_code_sha256 {engine_code} is no tree of games/released-engines.json")
        elif here not in known:
            problems.append(f"engine_code_sha256 {engine_code} ran under other outcome rules than here ({here})")
    elif model_version not in UNPINNED_VERSIONS:
        problems.append(f"outcome_manifest_sha256 missing (model {model_version} is released with pins)")
    return problems
