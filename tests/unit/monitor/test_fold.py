"""The monitor's folds: a redelivered batch changes nothing, a copy of an event under another offset counts once,
windows follow broker time, pools must balance and continue, the winners list keeps the newest 50."""

from __future__ import annotations

from services.monitor.adapters.par_sheets import load_par_figures
from services.monitor.core import latency
from services.monitor.core.facts import MovementFact, Position, RejectionFact, SpinFact, WinFact
from services.monitor.core.plan import MonitorFold, plan_jackpot_events, plan_spin_events
from services.monitor.core.windows import HOUR, MINUTE

PARS = load_par_figures()
T0 = 1_764_000_000_000 - 1_764_000_000_000 % 86_400_000  # a day boundary


def _spin(
    offset: int,
    ms: int,
    *,
    partition: int = 0,
    event_id: str | None = None,
    stake: int = 100,
    house_win: int = 0,
    latency_ms: int | None = 120,
) -> SpinFact:
    return SpinFact(
        at=Position(partition, offset, T0 + ms, event_id or f"e{partition}-{offset}"),
        game="rising-joker",
        stake_minor=stake,
        currency="EUR",
        operator_id="op-1",
        house_win_minor=house_win,
        pool_win_minor=0,
        return_micro=house_win * 1_000_000 + 10_000,
        latency_ms=latency_ms,
    )


def _fold(*batches) -> MonitorFold:
    fold = MonitorFold()
    for batch in batches:
        fold.apply(plan_spin_events(fold.read, list(batch), PARS))
    return fold


CELL = "rising-joker|100|EUR|op-1"


def test_a_redelivered_batch_changes_nothing():
    rejected = RejectionFact(Position(0, 2, T0 + 3_000, "r"), "STAKE_LOCKED")
    batch = [_spin(0, 1_000, house_win=50), _spin(1, 2_000), rejected]
    assert _fold(batch).tables == _fold(batch, batch, batch[1:]).tables


def test_a_copy_of_an_event_at_another_offset_counts_once_but_another_event_counts():
    once = _fold([_spin(0, 1_000, event_id="same")])
    twice = _fold([_spin(0, 1_000, event_id="same")], [_spin(5, 1_500, event_id="same"), _spin(6, 1_600)])
    assert once.tables["cells_1m"][(CELL, T0)]["spins"] == 1
    assert twice.tables["cells_1m"][(CELL, T0)]["spins"] == 2


def test_windows_are_the_broker_time_windows_holding_each_spin():
    fold = _fold([_spin(0, 59_999), _spin(1, 60_000), _spin(2, 650_000)])
    assert sorted(start - T0 for _cell, start in fold.tables["cells_1m"]) == [0, 60_000, 600_000]
    assert HOUR.starts_ms(T0 + 650_000) == [T0 + 600_000 - 3_600_000 + 600_000 * k for k in range(1, 7)]
    assert fold.tables["cells_1h"][(CELL, T0)]["spins"] == 3
    assert fold.tables["cells_1h"][(CELL, T0 + 600_000)]["spins"] == 1
    assert fold.tables["cells_1d"][(CELL, T0)]["spins"] == 3
    assert MINUTE.bucket_ms(T0 + 59_999) == T0


def test_cell_sums_are_exact_and_latency_has_percentiles():
    fold = _fold([_spin(i, 1_000 + i, house_win=200 if i % 4 == 0 else 0, latency_ms=100 + i) for i in range(100)])
    stats = fold.tables["cells_1m"][(CELL, T0)]
    assert (stats["spins"], stats["wagered_minor"], stats["house_win_minor"], stats["hits"]) == (100, 10_000, 5_000, 25)
    assert stats["return_micro"] == 5_000 * 1_000_000 + 100 * 10_000
    assert 100 <= latency.percentile_ms(stats["latency"], 0.5) <= 180
    assert latency.percentile_ms(stats["latency"], 0.99) >= latency.percentile_ms(stats["latency"], 0.5)


def _move(offset: int, event_id: str, opening: int, closing: int, balanced: bool = True) -> MovementFact:
    return MovementFact(
        Position(0, offset, T0 + offset, event_id), event_id, "diamond-mystery", "dm-green", opening, closing, balanced
    )


def test_a_pool_that_does_not_open_where_it_closed_or_does_not_balance_drifts():
    fold = MonitorFold()
    planned = fold.apply(
        plan_jackpot_events(
            [],
            [
                _move(0, "a", 0, 100),
                _move(1, "b", 100, 250),
                _move(2, "b", 100, 250),
                _move(3, "c", 260, 300),
                _move(4, "d", 300, 310, balanced=False),
            ],
        )
    )
    assert [(fact.event_id, kind) for fact, kind, *_ in planned.drifts] == [("c", "continuity"), ("d", "identity")]
    assert fold.tables["pools"]["dm-green"]["closing_micro"] == 310


def _win(offset: int, ms: int) -> WinFact:
    return WinFact(
        Position(0, offset, T0 + ms, f"w{offset}"),
        f"claim-{offset}",
        "diamond-mystery",
        "dm-green",
        "green",
        "p1",
        "op-1",
        "EUR",
        100,
        50_000,
        25 + offset,
        T0 + ms,
    )


def test_the_winners_list_keeps_the_newest_fifty_once_each():
    fold = MonitorFold()
    fold.apply(plan_jackpot_events([_win(i, i) for i in range(60)], []))
    fold.apply(plan_jackpot_events([_win(59, 59), _win(60, 1_000)], []))
    wins = fold.tables["wins"]["diamond-mystery"]["wins"]
    assert len(wins) == 50
    assert [w["claim_id"] for w in wins[:2]] == ["claim-60", "claim-59"]
