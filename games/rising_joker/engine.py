"""The Rising Joker engine the spin service plays: stops from the RNG, evaluation, mystery draw, exact pricing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR, micro_floor_to_minor
from games import GameResult, engine_code_sha256
from games.rising_joker.evaluate import SpinEvaluation
from games.rising_joker.kernel import evaluator
from games.rising_joker.model import Mystery, RisingJokerModel, model_sha256
from games.rising_joker.mystery import MysteryAward, draw_mystery
from games.rng import SpinRng

MICRO_PER_HUNDREDTH_MINOR = MICRO_PER_MINOR // 100  # F hundredths x S minor = F * S * 10,000 micro


def hundredths_to_micro(factor_hundredths: int, stake_minor: int) -> int:
    """The exact amount of a factor (in hundredths of the total stake) at a stake, in micro-units."""
    invariant(factor_hundredths >= 0, "factors are not negative")
    return factor_hundredths * stake_minor * MICRO_PER_HUNDREDTH_MINOR


def _factor_text(factor_hundredths: int) -> str:
    whole, hundredths = divmod(factor_hundredths, 100)
    return f"{whole}.{hundredths:02d}"


def _rows(columns: tuple[tuple[str, ...], ...]) -> list[list[str]]:
    return [[column[row] for column in columns] for row in range(len(columns[0]))]


def odds_json(mystery: Mystery) -> list[dict[str, Any]]:
    """Each tier's chance per trigger, exact and as '1 in N', for the reveal to show beside the cards."""
    return [
        {
            "tier": t.tier,
            "chance": f"{mystery.tier_chance(t.tier).numerator}/{mystery.tier_chance(t.tier).denominator}",
            "one_in": f"{float(1 / mystery.tier_chance(t.tier)):,.4g}",
        }
        for t in mystery.tiers
    ]


def _mystery_json(mystery: Mystery, drawn: bool, award: MysteryAward | None, stake_minor: int) -> dict[str, Any]:
    shown = _mystery_cards_json(drawn, award, stake_minor)
    if award is not None and mystery.reveal == "cards-with-odds":
        shown["odds_per_trigger"] = odds_json(mystery)
    return shown


def _mystery_cards_json(drawn: bool, award: MysteryAward | None, stake_minor: int) -> dict[str, Any]:
    if award is None:
        return {
            "drawn": drawn,
            "triggered": False,
            "tier": None,
            "cards": [],
            "revealed": 0,
            "fixed_factor": "0.00",
            "fixed_factor_hundredths": 0,
            "fixed_minor": 0,
        }
    return {
        "drawn": drawn,
        "triggered": True,
        "tier": award.tier,
        "cards": list(award.cards),
        "revealed": award.revealed,
        "fixed_factor": _factor_text(award.fixed_hundredths),
        "fixed_factor_hundredths": award.fixed_hundredths,
        "fixed_minor": hundredths_to_micro(award.fixed_hundredths, stake_minor) // MICRO_PER_MINOR,
    }


def _totals(
    model: RisingJokerModel, lines_micro: int, scatter_micro: int, fixed_micro: int, carried_in_micro: int
) -> dict[str, int]:
    """Exact win, what is paid, and where the sub-cent remainder goes (the pools in v1, the player's state from v2)."""
    exact_micro = lines_micro + scatter_micro + fixed_micro
    totals = {
        "lines_micro": lines_micro,
        "scatter_micro": scatter_micro,
        "mystery_fixed_micro": fixed_micro,
        "exact_win_micro": exact_micro,
    }
    if not model.carries_remainder:
        win_minor, breakage_micro = micro_floor_to_minor(exact_micro)
        return totals | {"win_minor": win_minor, "breakage_micro": breakage_micro}
    win_minor, remainder_micro = micro_floor_to_minor(exact_micro + carried_in_micro)
    return totals | {
        "carried_in_micro": carried_in_micro,
        "win_minor": win_minor,
        "breakage_micro": 0,
        "remainder_after_micro": remainder_micro,
    }


def outcome_json(
    model: RisingJokerModel,
    spin: SpinEvaluation,
    stake_minor: int,
    mystery_drawn: bool,
    award: MysteryAward | None,
    carried_in_micro: int = 0,
) -> dict[str, Any]:
    """The documented, stable outcome shape (docs/math/rising-joker/README.md, 'Outcome JSON')."""
    lines_micro = hundredths_to_micro(spin.lines_hundredths, stake_minor)
    scatter_micro = hundredths_to_micro(spin.scatter_hundredths, stake_minor)
    fixed_micro = hundredths_to_micro(award.fixed_hundredths, stake_minor) if award else 0
    return {
        "model_version": model.version,
        "stake_minor": stake_minor,
        "stops": list(spin.stops),
        "window_before": _rows(spin.before),
        "window_after": _rows(spin.after),
        "expanded_reels": list(spin.expanded_reels),
        "line_wins": [
            {
                "line": w.line,
                "rows": list(model.lines[w.line - 1]),
                "symbol": w.symbol,
                "count": w.count,
                "factor": _factor_text(w.factor_hundredths),
                "factor_hundredths": w.factor_hundredths,
                "amount_micro": hundredths_to_micro(w.factor_hundredths, stake_minor),
            }
            for w in spin.line_wins
        ],
        "scatter": {
            "count": spin.scatter_count,
            "factor": _factor_text(spin.scatter_hundredths),
            "factor_hundredths": spin.scatter_hundredths,
            "amount_micro": scatter_micro,
        },
        "losing_spin": spin.base_hundredths == 0,
        "mystery": _mystery_json(model.mystery, mystery_drawn, award, stake_minor),
        "totals": _totals(model, lines_micro, scatter_micro, fixed_micro, carried_in_micro),
    }


def moves_remainder(model: RisingJokerModel, stake_minor: int) -> bool:
    """Whether a win at `stake_minor` can have a sub-cent part, so a carried remainder there is completed in time.
    Every total is a sum of the paytable's factors, so when each factor pays whole cents at this stake, every win
    does, and a carried remainder can never be completed at this stake."""
    factors = [pays.for_count(n) for pays in (*model.line_pays.values(), model.scatter_pays) for n in (3, 4, 5)]
    return any(hundredths_to_micro(factor, stake_minor) % MICRO_PER_MINOR for factor in factors)


@dataclass(frozen=True)
class RisingJokerEngine:
    """One released model version, playable by the spin service (implements the GameEngine protocol)."""

    model: RisingJokerModel
    game: str = "rising-joker"
    currency: str = "EUR"

    @property
    def model_version(self) -> str:
        return self.model.version

    @property
    def model_sha256(self) -> str:
        return model_sha256(self.model.version)

    @property
    def code_hash(self) -> str:
        return engine_code_sha256()

    @property
    def stakes_minor(self) -> tuple[int, ...]:
        return self.model.stakes_minor

    def initial_state(self) -> dict[str, Any]:
        return {"remainder_micro": 0} if self.model.carries_remainder else {}

    def carried_in_micro(self, state: dict[str, Any]) -> int:
        """The player's unpaid sub-cent remainder before this spin ({} is a player's state from a v1 spin: 0)."""
        if not self.model.carries_remainder:
            invariant(state == {}, "a v1 Rising Joker keeps no player state")
            return 0
        invariant(set(state) <= {"remainder_micro"}, "Rising Joker state holds only the carried remainder")
        carried = state.get("remainder_micro", 0)
        invariant(type(carried) is int, "the carried remainder is an integer")
        invariant(0 <= carried < MICRO_PER_MINOR, "the carried remainder is below one cent")
        return carried

    def remainder_micro(self, state: dict[str, Any]) -> int | None:
        return self.carried_in_micro(state) if self.model.carries_remainder else None

    def stranded_remainder_micro(self, state: dict[str, Any], stake_minor: int) -> int:
        carried = self.carried_in_micro(state)
        return carried if carried and not moves_remainder(self.model, stake_minor) else 0

    def without_remainder(self, state: dict[str, Any]) -> dict[str, Any]:
        self.carried_in_micro(state)  # checks the state's shape
        return self.initial_state()  # the carried remainder is all a player's state holds

    def locked_stake(self, state: dict[str, Any]) -> int | None:
        return None  # the carried remainder is money, not a stake-bound feature: any stake may follow

    def forfeit(self, state: dict[str, Any]) -> dict[str, Any]:
        return state  # nothing locks the stake, and the player's remainder is never forfeited

    def play(self, state: dict[str, Any], stake_minor: int, rng: SpinRng) -> GameResult:
        invariant(stake_minor in self.model.stakes_minor, "the spin service refuses other stakes before play")
        carried_in = self.carried_in_micro(state)
        stops = tuple(rng.below(len(strip)) for strip in self.model.reels)
        spin = evaluator()(self.model, stops)  # compiled when numba is installed (the same evaluation)
        losing = spin.base_hundredths == 0
        award = draw_mystery(self.model.mystery, rng) if losing else None
        outcome = outcome_json(self.model, spin, stake_minor, losing, award, carried_in)
        totals = outcome["totals"]
        kept = totals.get("remainder_after_micro", 0)
        invariant(
            totals["win_minor"] * MICRO_PER_MINOR + totals["breakage_micro"] + kept
            == totals["exact_win_micro"] + carried_in,
            "paid + breakage + kept = exact win + carried",
        )
        claims = (award.tier,) if award else ()
        state_after = {"remainder_micro": kept} if self.model.carries_remainder else {}
        return GameResult(totals["win_minor"], totals["breakage_micro"], claims, outcome, state_after)
