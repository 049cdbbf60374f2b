"""A settlement pays at most the game's maximum award for the stake it settles (the par sheet's theoretical maximum),
so even a validly signed settlement cannot mint more than the model could ever pay."""

from __future__ import annotations

import json
from pathlib import Path

from services.wallet.core.awards import MAX_AWARD_X_STAKE, award_problem
from tests.support.wallet import Wallet, code

MATH = Path(__file__).resolve().parents[4] / "docs" / "math"


def test_a_rising_joker_settlement_above_5000_times_the_stake_is_refused_and_moves_nothing():
    wallet = Wallet()
    wallet.deposit(1, 1_000)
    wallet.debit(2, 100)
    assert code(wallet.settle(3, wager=2, house_win_minor=500_001)) == "INVALID_AMOUNT"
    assert wallet.balance() == 900
    assert code(wallet.settle(4, wager=2, house_win_minor=500_000)) is None
    assert wallet.balance() == 900 + 500_000


def test_the_bounds_are_the_par_sheets_theoretical_maxima():
    rising = json.loads((MATH / "rising-joker" / "parsheet.json").read_text())
    assert MAX_AWARD_X_STAKE["rising-joker"] == rising["max_win"]
    star = json.loads((MATH / "stjernestoev" / "parsheet.json").read_text())
    assert str(star["volatility"]["theoretical_max"]).startswith("unbounded")
    assert MAX_AWARD_X_STAKE["stjernestoev"] is None


def test_an_unknown_game_or_a_forgotten_debit_is_bounded_only_where_every_game_is():
    assert award_problem("stjernestoev", 100, 10**12) is None
    assert award_problem(None, 100, 10**12) is None  # Stjernestøv has no finite maximum
    assert award_problem("rising-joker", 100, 500_000) is None
    assert "maximum award 500000" in award_problem("rising-joker", 100, 500_001)
