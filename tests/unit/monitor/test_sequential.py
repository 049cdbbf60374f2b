"""The RTP test: a skewed stream of settled spins raises the alarm; a million spins at par over every cell raise none,
whether their returns are normal or heavy-tailed (mostly nothing, now and then a win of a thousand stakes)."""

from __future__ import annotations

import random

from services.monitor.adapters.par_sheets import load_par_figures
from services.monitor.core import sequential
from services.monitor.core.facts import Position, SpinFact
from services.monitor.core.plan import MonitorFold, plan_spin_events

PARS = load_par_figures()
MICRO = 1_000_000


def _spins(game: str, stake: int, returns_x, operator: str = "op-1", first: int = 0) -> list[SpinFact]:
    return [
        SpinFact(
            at=Position(0, first + i, 1_700_000_000_000 + i, f"id-{first + i}"),
            game=game,
            stake_minor=stake,
            currency="EUR",
            operator_id=operator,
            house_win_minor=0,
            pool_win_minor=0,
            return_micro=round(r * stake * MICRO),
            latency_ms=None,
        )
        for i, r in enumerate(returns_x)
    ]


def _heavy_tailed(rng: random.Random, mean: float, sd: float, big: float = 1_000.0) -> float:
    """Mostly nothing, often twice the stake, rarely `big` stakes: this mean and (about) this σ, a huge skew."""
    p_big = sd * sd / (big * big)
    p_small = (mean - p_big * big) / 2.0
    u = rng.random()
    return big if u < p_big else 2.0 if u < p_big + p_small else 0.0


def test_a_stream_paying_half_the_par_raises_the_low_alarm_through_the_fold():
    rng = random.Random(7)
    par = PARS["rising-joker"]
    returns = [_heavy_tailed(rng, par.rtp / 2, par.sd) for _ in range(40_000)]
    fold = MonitorFold()
    planned = fold.apply(plan_spin_events(fold.read, _spins("rising-joker", 100, returns), PARS))
    assert [crossing.side for _fact, crossing in planned.crossings] == ["low"]
    assert fold.tables["rtp_test"]["rising-joker|100|EUR|op-1"]["low_at"] < 40_000


def test_a_stream_paying_nothing_is_caught_within_a_few_thousand_spins():
    state, par = sequential.new_state(), PARS["rising-joker"]
    crossing = next(c for c in (sequential.observe(state, par, 100, 0) for _ in range(10_000)) if c)
    assert crossing.side == "low" and crossing.spins < 4_000


def test_a_stream_paying_three_times_par_raises_the_high_alarm():
    state, par, rng = sequential.new_state(), PARS["stjernestoev"], random.Random(3)
    crossings = [
        sequential.observe(state, par, 50, round(max(0.0, rng.gauss(3 * par.rtp, par.sd)) * 50 * MICRO))
        for _ in range(200_000)
    ]
    assert [c.side for c in crossings if c] == ["high"]


def test_the_alarm_is_raised_once_per_side_and_cell():
    state, par = sequential.new_state(), PARS["rising-joker"]
    crossings = [sequential.observe(state, par, 100, 0) for _ in range(20_000)]
    assert len([c for c in crossings if c]) == 1


def _cells() -> list[tuple[str, int, str]]:
    stakes = {"rising-joker": (10, 20, 50, 100, 200, 500, 1000, 2000), "stjernestoev": (50, 100, 200, 500, 1000)}
    return [
        (game, stake, op)
        for game, game_stakes in stakes.items()
        for stake in game_stakes
        for op in ("op-1", "op-2", "op-3")
    ]


def test_a_million_normally_distributed_spins_at_par_over_every_cell_raise_nothing():
    rng, cells = random.Random(2026), _cells()
    states = {cell: sequential.new_state() for cell in cells}
    alarms = 0
    for index in range(1_000_000):
        game, stake, op = cells[index % len(cells)]
        par = PARS[game]
        return_micro = round(rng.gauss(par.rtp, par.sd) * stake * MICRO)
        alarms += sequential.observe(states[(game, stake, op)], par, stake, return_micro) is not None
    assert sum(state["spins"] for state in states.values()) == 1_000_000
    assert alarms == 0


def test_a_million_heavy_tailed_spins_at_par_in_one_cell_raise_nothing():
    par, rng = PARS["rising-joker"], random.Random(11)
    state, stake, alarms = sequential.new_state(), 100, 0
    for _ in range(1_000_000):
        r = _heavy_tailed(rng, par.rtp, par.sd)
        alarms += sequential.observe(state, par, stake, round(r * stake * MICRO)) is not None
    assert alarms == 0
