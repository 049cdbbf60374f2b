"""Build each game's reachability witnesses (one per advertised award) for the par sheet and its replay test."""

from __future__ import annotations

from typing import Any

import numpy as np

from games.witness import WordFeed, awards_in, rising_joker_words, stjernestoev_cluster_words, stjernestoev_wheel_words


def _replayed(game: str, engine: Any, row: dict[str, Any]) -> dict[str, Any]:
    result = engine.play(row["state"], row["stake_minor"], WordFeed(row["words"]))
    assert row["award"] in awards_in(game, result.outcome), f"witness of {row['award']} does not reach it"
    return row | {"win_minor": result.win_minor}


def rising_joker_witnesses(engine: Any, search_seed: int = 1) -> list[dict[str, Any]]:
    """Stops found by a seeded search over the strips for every line and scatter award, then the four mystery tiers
    after a losing window."""
    from games.rising_joker.fullcycle import evaluate_batch, tables

    model, t = engine.model, tables(engine.model)
    names = list(model.symbols)
    wanted = {f"{c} x {s}" for s in model.line_pays for c in (3, 4, 5)} | {f"{c} x star (scatter)" for c in (3, 4, 5)}
    found: dict[str, list[int]] = {}
    losing: list[int] | None = None
    rng = np.random.default_rng(search_seed)
    while wanted - set(found) or losing is None:
        stops = np.stack([rng.integers(0, len(strip), 500_000) for strip in model.reels], axis=1)
        factor, stars, symbol, count = evaluate_batch(t, stops)
        for i in np.nonzero(factor > 0)[0]:
            labels = {
                f"{int(count[i, n])} x {names[int(symbol[i, n])]}" for n in range(len(model.lines)) if count[i, n]
            } | ({f"{int(stars[i])} x star (scatter)"} if stars[i] >= 3 else set())
            for label in labels - set(found):
                found[label] = [int(s) for s in stops[i]]
        if losing is None and np.any(factor == 0):
            losing = [int(s) for s in stops[int(np.argmax(factor == 0))]]
    rows = [{"award": a, "words": rising_joker_words(model, found[a]), "stops": found[a]} for a in sorted(found)]
    rows += [
        {"award": f"Diamond Mystery {t_.tier}", "words": rising_joker_words(model, losing, t_.tier), "stops": losing}
        for t_ in model.mystery.tiers
    ]
    return [
        _replayed(
            "rising-joker",
            engine,
            row
            | {
                "stake_minor": 100,
                "state": engine.initial_state(),
                "method": "stops from a seeded search; mystery words set",
            },
        )
        for row in rows
    ]


def stjernestoev_witnesses(engine: Any) -> list[dict[str, Any]]:
    """A constructed board per cluster award (symbol × size 5..21) and a three-Astro-Flash board per wheel segment
    (the jackpot segments at the largest stake, where they are likeliest)."""
    from games.stjernestoev.model import SEGMENTS, SYMBOLS

    model = engine.model
    rows = [
        {
            "award": f"{size} {symbol}",
            "stake_minor": 500,
            "words": stjernestoev_cluster_words(model, symbol, size),
            "method": "constructed board: the cluster, every other position unlike its neighbours",
        }
        for symbol in SYMBOLS
        for size in range(5, 22)
    ]
    rows += [
        {
            "award": f"wheel {segment}",
            "stake_minor": 10000,
            "words": stjernestoev_wheel_words(model, 10000, segment),
            "method": "constructed board with 3 Astro Flash, then the wheel word of the segment",
        }
        for segment in SEGMENTS
    ]
    return [_replayed("stjernestoev", engine, row | {"state": engine.initial_state()}) for row in rows]


def write_witnesses(game: str, out_dir: Any, model_version: str | None = None) -> list[dict[str, Any]]:
    """Build, replay and write `out_dir`/witnesses.json for the game's current engine (or a released version's)."""
    import json

    from games import registry

    engine = registry.engine_for_model(game, model_version) if model_version else registry.engine(game)
    rows = rising_joker_witnesses(engine) if game == "rising-joker" else stjernestoev_witnesses(engine)
    document = {
        "game": game,
        "model_version": engine.model_version,
        "model_sha256": engine.model_sha256,
        "how_to_replay": "engine.play(state, stake_minor, games.witness.WordFeed(words)): the words "
        "replace the seed's stream; after them the feed continues with ChaCha20 of "
        "sha256('reelstream-witness-tail')",
        "witnesses": rows,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "witnesses.json").write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    return rows
