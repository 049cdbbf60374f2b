"""Re-play one recorded spin from its seed, state before and model version, and name every field that differs."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson

from games import GameEngine, GameResult
from games.pins import pin_problems
from games.rng import SpinRng

EngineLookup = Callable[[str, str], GameEngine]


def default_lookup(game: str, model_version: str) -> GameEngine:
    """The released engines (imported late: the audit core must not fail to load while an engine is missing)."""
    from games.registry import engine_for_model

    return engine_for_model(game, model_version)


def carried_remainder(game: str, state: dict[str, Any]) -> int | None:
    """The remainder a player's state carries, read by the game's current engine (None: the game keeps none)."""
    from games.registry import UnknownGame, engine

    try:
        return engine(game).remainder_micro(state)
    except UnknownGame:
        return None


_AS_JSON = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def as_json(value: Any) -> Any:
    """What a value looks like after one trip through the event's JSON (tuples become lists, and so on)."""
    return orjson.loads(orjson.dumps(value, option=_AS_JSON))


def same_json(recorded: Any, derived: Any) -> bool:
    """True when both write the same JSON with sorted keys: then `first_difference` finds nothing (equal text is equal
    values of equal types), so the common case skips its walk; False says only "walk them"."""
    option = _AS_JSON | orjson.OPT_SORT_KEYS
    return orjson.dumps(recorded, option=option) == orjson.dumps(derived, option=option)


def replay(
    lookup: EngineLookup, game: str, model_version: str, state_before: dict[str, Any], stake_minor: int, seed_hex: str
) -> GameResult:
    engine = lookup(game, model_version)
    return engine.play(copy.deepcopy(state_before), stake_minor, SpinRng.from_hex(seed_hex))


def refused_pins(lookup: EngineLookup, settled: Any) -> list[str]:
    """Why the engine here must not re-derive this spin: its model or outcome rules differ from the recorded ones."""
    recorded = {
        name: getattr(settled, name, None) for name in ("model_sha256", "outcome_manifest_sha256", "engine_code_sha256")
    }
    return pin_problems(recorded, lookup(settled.game, settled.model_version), settled.model_version)


def first_difference(recorded: Any, derived: Any, path: str = "") -> str | None:
    """The path of the first place two JSON values differ, e.g. "outcome.window_before[1][3]", else None."""
    if isinstance(recorded, dict) and isinstance(derived, dict):
        for key in sorted(set(recorded) | set(derived), key=str):
            if key not in recorded or key not in derived:
                return f"{path}.{key} (present on one side only)"
            found = first_difference(recorded[key], derived[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(derived, list):
        if len(recorded) != len(derived):
            return f"{path} (length {len(recorded)} recorded, {len(derived)} re-derived)"
        for index, (left, right) in enumerate(zip(recorded, derived)):
            found = first_difference(left, right, f"{path}[{index}]")
            if found:
                return found
        return None
    if recorded != derived or type(recorded) is not type(derived):
        return f"{path} (recorded {recorded!r}, re-derived {derived!r})"
    return None


def compare_settled(settled: Any, result: GameResult, drop_tiers: tuple[str, ...] = ()) -> list[str]:
    """Every way a spin.settled payload differs from its re-derivation (empty when it matches exactly); every wager
    also claims its network's must-drop tiers (`drop_tiers`)."""
    problems = []
    for name in ("outcome", "state_after"):
        recorded, derived = getattr(settled, name), getattr(result, name)
        if not same_json(recorded, derived):
            difference = first_difference(as_json(recorded), as_json(derived), name)
            if difference:
                problems.append(difference)
    if settled.house_win_minor != result.win_minor:
        problems.append(f"house_win_minor {settled.house_win_minor} recorded, {result.win_minor} re-derived")
    if settled.breakage_micro != result.breakage_micro:
        problems.append(f"breakage_micro {settled.breakage_micro} recorded, {result.breakage_micro} re-derived")
    awarded = Counter(award.tier for award in settled.jackpot_awards)
    if awarded - Counter(result.claims) - Counter(drop_tiers):
        problems.append(f"jackpot awards {sorted(awarded.elements())} but the spin claims {list(result.claims)}")
    return problems
