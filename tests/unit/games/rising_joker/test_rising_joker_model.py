"""The released model file: pinned bytes, validated at load, tiers and contribution from the pool configuration."""

from __future__ import annotations

import json

import pytest

from shared.pools import load_pools
from games.rising_joker.model import TIERS, model_bytes, model_from_data, model_sha256

RELEASED_SHA256 = {
    "rising-joker-v1": "4a8a78cc178232cf7b70709cfd5fb24e6388549331b1c9f74abc111d8dff0045",
    "rising-joker-v2": "b77cd9f8cab335e9976bd9af4f3190574b5a6acb9f68e5eb52e3cf20dbafcfc8",
    "rising-joker-v3": "c8177b3c030c2ad7680bd393bc050be19bbd3ff223498096a5ed1a035f6365bb",
}


@pytest.mark.parametrize("version, sha256", RELEASED_SHA256.items())
def test_a_released_model_file_never_changes(version, sha256):
    assert model_sha256(version) == sha256


def test_tiers_are_the_pool_tiers_of_the_game_network(released):
    network = load_pools().network_for_game("rising-joker")
    assert tuple(t.tier for t in released.mystery.tiers) == TIERS == tuple(pool.tier for pool in network.pools)


def test_fixed_prizes_follow_the_seed(released):
    assert [t.fixed_hundredths for t in released.mystery.tiers] == [5_000, 20_000, 125_000, 500_000]


def test_paytable_follows_the_seed(released):
    pays = {name: (p.three, p.four, p.five) for name, p in released.line_pays.items()}
    assert pays["cherry"] == pays["lemon"] == pays["orange"] == (5, 300, 1200)
    assert pays["grape"] == pays["melon"] == (100, 600, 2400)
    assert (pays["strawberry"], pays["bell"]) == ((200, 1000, 4000), (400, 2000, 8000))
    assert (pays["red_seven"], pays["gold_seven"]) == ((600, 4000, 20000), (1000, 6000, 50000))
    s = released.scatter_pays
    assert (s.three, s.four, s.five) == (500, 5000, 25000)


def test_lines_are_the_public_configuration(released):
    shapes = ["11111", "00000", "22222", "01210", "21012", "00122", "22100", "10001", "12221", "21110"]
    assert released.lines == tuple(tuple(int(c) for c in shape) for shape in shapes)


def _data(**changes):
    data = json.loads(model_bytes())
    data.update(changes)
    return data


def test_two_stars_in_one_window_are_refused_at_load(released):
    reels = [list(strip) for strip in released.reels]
    reels[2][0], reels[2][1] = "star", "star"
    with pytest.raises(ValueError, match="at most one star"):
        model_from_data(_data(reels=reels))


def test_tiers_out_of_order_are_refused_at_load():
    data = _data()
    data["mystery"]["tiers"] = list(reversed(data["mystery"]["tiers"]))
    with pytest.raises(ValueError, match="tiers must be exactly"):
        model_from_data(data)


def test_pays_that_do_not_rise_are_refused_at_load():
    data = _data()
    data["line_pays"]["bell"] = {"three": 400, "four": 400, "five": 8000}
    with pytest.raises(ValueError, match="rise strictly"):
        model_from_data(data)


def test_a_certain_trigger_is_refused_at_load():
    data = _data()
    data["mystery"]["trigger"] = {"numerator": 5, "denominator": 5}
    with pytest.raises(ValueError, match="below 1"):
        model_from_data(data)


def test_unknown_fields_are_refused_at_load():
    with pytest.raises(ValueError):
        model_from_data(_data(free_spins=10))
