"""Which stake strands a carried remainder: the engine's rule (a stake where every paytable factor pays whole cents)
agrees with the par sheet's exact chain of remainder states per stake, and it strands exactly what is carried."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.rising_joker.engine import RisingJokerEngine, moves_remainder
from games.rising_joker.model import CURRENT_VERSION, load_model

PARSHEET = Path(__file__).parents[4] / "docs" / "math" / "rising-joker" / "parsheet.json"


def test_a_stake_moves_a_remainder_exactly_when_the_par_sheets_chain_reaches_a_state_other_than_zero():
    sheet = json.loads(PARSHEET.read_text())
    assert sheet["model_version"] == CURRENT_VERSION
    model = load_model(CURRENT_VERSION)
    for row in sheet["breakage"]:
        assert moves_remainder(model, row["stake_minor"]) == (row["remainder_states_micro"] != [0]), row["stake_minor"]


@pytest.mark.parametrize(("stake", "stranded"), [(10, 0), (30, 0), (20, 500_000), (1_000, 500_000)])
def test_a_half_cent_is_stranded_only_by_a_stake_that_pays_whole_cents(stake, stranded):
    engine = RisingJokerEngine(load_model(CURRENT_VERSION))
    assert engine.stranded_remainder_micro({"remainder_micro": 500_000}, stake) == stranded
    assert engine.stranded_remainder_micro({"remainder_micro": 0}, stake) == 0
    assert engine.without_remainder({"remainder_micro": 500_000}) == {"remainder_micro": 0}
    assert engine.remainder_micro({"remainder_micro": 500_000}) == 500_000
    assert RisingJokerEngine(load_model("rising-joker-v1")).remainder_micro({}) is None
