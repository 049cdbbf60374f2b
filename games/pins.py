"""What pins a recorded spin to the exact rules that evaluated and paid it: the model file's sha256 and the game's
outcome manifest hash; how the audit uses them: docs/math/outcome-manifest.md."""

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
    manifests: frozenset[tuple[str, str]] | None = None,
) -> list[str]:
    """Why a spin recorded with these pins is not a spin of released rules for `engine` to re-derive (empty when it
    is): its model file must be the engine's, and its outcome rules a released manifest of its version."""
    problems = []
    model = recorded.get("model_sha256")
    if model is None and model_version not in UNPINNED_VERSIONS:
        problems.append(f"model_sha256 missing (model {model_version} is released with pins)")
    elif model is not None and model != engine.model_sha256:
        problems.append(f"model_sha256 {model} recorded, the engine here has {engine.model_sha256}")
    pinned, engine_code = recorded.get("outcome_manifest_sha256"), recorded.get("engine_code_sha256")
    if pinned is not None:
        known = manifest.released_manifests() if manifests is None else manifests
        if (model_version, pinned) not in known and pinned != manifest_of(engine):
            problems.append(f"outcome_manifest_sha256 {pinned} is no released manifest of {model_version}")
    elif engine_code is not None:
        if (model_version, engine_code) not in (manifest.released() if released is None else released):
            problems.append(f"engine_code_sha256 {engine_code} is no tree of games/released-engines.json")
    elif model_version not in UNPINNED_VERSIONS:
        problems.append(f"outcome_manifest_sha256 missing (model {model_version} is released with pins)")
    return problems
