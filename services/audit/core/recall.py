"""Game recall (GLI-19 §4.14): a player's last games, each as the ordered steps a person can follow."""

from __future__ import annotations

from typing import Any

Step = dict[str, Any]


def recall_games(spins: list[dict[str, Any]], player_id: str, last: int) -> list[dict[str, Any]]:
    """The last `last` settled spins of a player (spins as spin.settled data dicts, oldest first), newest first."""
    mine = [spin for spin in spins if spin["player_id"] == player_id]
    return [game_record(spin) for spin in reversed(mine[-last:])] if last > 0 else []


def game_record(spin: dict[str, Any]) -> dict[str, Any]:
    outcome = spin.get("outcome") or {}
    steps = _steps(spin["game"], outcome)
    for award in spin.get("jackpot_awards") or []:
        steps.append(
            {
                "step": "jackpot",
                "tier": award["tier"],
                "pool_id": award["pool_id"],
                "amount_minor": award["amount_minor"],
                "share_ppm": award["share_ppm"],
                "claim_id": str(award["claim_id"]),
            }
        )
    steps.append(
        {
            "step": "settled",
            "stake_minor": spin["stake_minor"],
            "win_minor": spin["win_minor"],
            "house_win_minor": spin["house_win_minor"],
            "jackpot_win_minor": spin["jackpot_win_minor"],
            "breakage_micro": spin["breakage_micro"],
            "balance_after_minor": spin["balance_after_minor"],
        }
    )
    return {
        "request_id": str(spin["request_id"]),
        "game": spin["game"],
        "currency": spin["currency"],
        "settled_at": str(spin["settled_at"]),
        "model_version": spin["model_version"],
        "seed": spin["seed"],
        "state_before": spin["state_before"],
        "state_after": spin["state_after"],
        "steps": steps,
    }


def _steps(game: str, outcome: dict[str, Any]) -> list[Step]:
    if game == "rising-joker" and "window_before" in outcome:
        return _rising_joker(outcome)
    if game == "stjernestoev" and "initial_board" in outcome:
        return _stjernestoev(outcome)
    return [{"step": "outcome", "outcome": outcome}]


def _rising_joker(outcome: dict[str, Any]) -> list[Step]:
    steps: list[Step] = [{"step": "spin", "stops": outcome.get("stops"), "board": outcome["window_before"]}]
    if outcome.get("expanded_reels"):
        steps.append({"step": "joker expands", "reels": outcome["expanded_reels"], "board": outcome["window_after"]})
    if outcome.get("line_wins"):
        steps.append({"step": "line wins", "wins": outcome["line_wins"]})
    scatter = outcome.get("scatter") or {}
    if scatter.get("factor_hundredths"):
        steps.append({**scatter, "step": "scatter"})
    mystery = outcome.get("mystery") or {}
    if mystery.get("triggered"):
        steps.append(
            {
                "step": "diamond mystery",
                "tier": mystery["tier"],
                "cards": mystery["cards"],
                "revealed": mystery["revealed"],
                "fixed_minor": mystery["fixed_minor"],
            }
        )
    return steps


def _stjernestoev(outcome: dict[str, Any]) -> list[Step]:
    steps: list[Step] = [
        {
            "step": "bonus ring moves",
            "ring": outcome.get("bonus_ring_at_start"),
            "entered": outcome.get("bonus_circle_entered"),
            "left": outcome.get("bonus_circle_left"),
        },
        {"step": "board", "board": outcome["initial_board"]},
    ]
    steps += [{**c, "step": f"cascade {c['step']}"} for c in outcome.get("cascades") or []]
    astro = outcome.get("astro_flash")
    if astro:
        steps.append({**{k: v for k, v in astro.items() if k != "cascades"}, "step": "astro flash"})
        steps += [{**c, "step": f"astro flash cascade {c['step']}"} for c in astro.get("cascades") or []]
    steps.append({"step": "bonus ring after", "ring": outcome.get("bonus_ring_after")})
    return steps
