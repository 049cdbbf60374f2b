"""Reports (GGR, liability, reconciliation) and game recall read from the same folds the audit checks."""

from __future__ import annotations

import pytest

from services.audit.core.audit import run_audit
from services.audit.core.recall import recall_games
from services.audit.core.reports import ggr_rows, liability_rows, reconciliation_rows
from shared.rtp import RtpSample
from bench.synthetic.spins import play_history, stand_in_lookup
from shared.events import spin as sp
from shared.money import MICRO_PER_MINOR
from shared.pools import load_pools


@pytest.fixture(scope="module")
def result():
    return run_audit(play_history(seed=5, players=2, spins_per_player=20).records(), lookup=stand_in_lookup)


def test_ggr_is_stakes_minus_exact_house_wins_minus_contributions_in_micro(result):
    rows = ggr_rows(result.ledger)
    settled = [f.data for f in result.spins.settled.values()]
    assert sum(row["wagers"] for row in rows) == len(settled) == 40
    expected = sum(
        (s.stake_minor - s.house_win_minor) * MICRO_PER_MINOR - s.breakage_micro - s.contribution_micro for s in settled
    )
    assert sum(row["ggr_micro"] for row in rows) == expected
    assert {row["currency"] for row in rows} == {"EUR", "DKK"}


def test_liability_per_pool_is_the_level_and_operators_share_the_net(result):
    rows = liability_rows(result.pools)
    pools = [row for row in rows if row["kind"] == "pool"]
    operators = [row for row in rows if row["kind"] == "operator"]
    assert {row["pool_id"] for row in pools} == set(result.pools.pools)
    for row in pools:
        assert row["seeds_micro"] + row["contributions_micro"] - row["paid_micro"] == row["level_micro"]
    assert {row["operator_id"] for row in operators} == {"op-1"}


def test_reconciliation_matches_the_wallet_and_the_pools_exactly_on_a_quiet_history(result):
    for row in reconciliation_rows(result.ledger, result.pools, load_pools(), result.seamless.rounds):
        assert row["levels_identity_holds"]
        assert row["contributions_difference_micro"] == 0
        assert row["payouts_difference_micro"] == 0
        assert row["wallet_liability_micro"] == row["pools_contributions_micro"] - row["pools_paid_micro"]


def test_recall_lists_the_last_games_newest_first_with_a_jackpot_step_when_won(result):
    spins = [f.data.model_dump(mode="json") for f in result.spins.settled.values()]
    games = recall_games(spins, "p-1", 3)
    mine = [s for s in spins if s["player_id"] == "p-1"]
    assert [g["request_id"] for g in games] == [s["request_id"] for s in reversed(mine[-3:])]
    assert games[0]["steps"][-1]["step"] == "settled"
    won = [s for s in spins if s["jackpot_awards"]]
    assert won, "the history must hold a jackpot win"
    steps = recall_games(spins, won[0]["player_id"], 1000)
    assert any(step["step"] == "jackpot" for game in steps for step in game["steps"])


def test_the_rtp_band_narrows_with_more_spins_and_holds_the_mean():
    small, large = RtpSample("g"), RtpSample("g")
    for index in range(1000):
        ret = (index % 10) * 200_000
        if index < 100:
            small.add(100, ret * 100)
        large.add(100, ret * 100)
    assert large.half_width < small.half_width
    assert abs(large.rtp - 0.9) < 1e-12
    assert sp.SpinSettled  # the payload model the samples are drawn from


def test_stjernestoev_recall_names_each_cascade_by_its_number():
    from services.audit.core.recall import game_record

    spin = {
        "request_id": "r",
        "player_id": "p",
        "game": "stjernestoev",
        "currency": "DKK",
        "settled_at": "t",
        "model_version": "v",
        "seed": "0" * 64,
        "state_before": {},
        "state_after": {},
        "stake_minor": 50,
        "win_minor": 20,
        "house_win_minor": 20,
        "jackpot_win_minor": 0,
        "breakage_micro": 0,
        "balance_after_minor": 1,
        "jackpot_awards": [],
        "outcome": {
            "initial_board": ["red"] * 21,
            "cascades": [{"step": 1, "clusters": []}, {"step": 2, "clusters": []}],
            "astro_flash": None,
            "bonus_ring_after": [None] * 5,
        },
    }
    names = [step["step"] for step in game_record(spin)["steps"]]
    assert names == ["bonus ring moves", "board", "cascade 1", "cascade 2", "bonus ring after", "settled"]
