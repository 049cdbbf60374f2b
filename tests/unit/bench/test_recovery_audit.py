"""The audit's figures of `bench recovery`: the history handed over in rounds is the history played at once, and the
`audit` object pairs the first size's full audit with the last size's audit since the checkpoint, as a ratio."""

from __future__ import annotations

from bench.recovery_audit import cuts_before, describe, summary
from bench.synthetic.spins import history_in_rounds, play_history
from shared.events import encode


def test_a_history_handed_over_in_rounds_is_the_history_played_at_once():
    whole = [encode(item.envelope) for item in play_history(seed=3, players=4, spins_per_player=6).emitted]
    rounds = list(history_in_rounds(seed=3, players=4, spins_per_player=6))
    assert len(rounds) == 1 + 6, "the deposits, then one round per spin of each player"
    assert [encode(item.envelope) for handed in rounds for item in handed] == whole


def test_the_audit_object_carries_the_full_and_the_incremental_audit_and_their_ratio():
    full = {"full_s": 10.0, "records": 52_000, "records_per_s": 5_200, "raw_consume_records_per_s": 16_000}
    full |= {"rate_over_raw": 0.325, "discrepancies": 0}
    incremental = {"incremental_s": 12.0, "incremental_records": 52_000, "incremental_history_spins": 100_000}
    incremental |= {"incremental_tail_spins": 10_000, "incremental_discrepancies": 0}
    sizes = [
        {"history": {"spins": 10_000}, "audit": full},
        {"history": {"spins": 100_000}, "audit": incremental},
    ]
    audit = summary(sizes)
    assert {"full_s", "incremental_s", "records", "records_per_s", "raw_consume_records_per_s"} <= set(audit)
    assert audit["incremental_over_full"] == 1.2 and audit["full_history_spins"] == 10_000
    lines = describe(audit)
    assert "0.33× (target ≥ 0.3×)" in lines[0]
    assert "last 10,000 spins of 100,000" in lines[1] and "1.20× the full audit of 10,000 spins" in lines[1]


def test_without_an_incremental_audit_the_object_says_so():
    audit = summary([{"history": {"spins": 300}, "audit": None}])
    assert audit == {"incremental_s": None}
    assert describe(audit) == []


def test_the_head_of_a_long_history_is_audited_in_links_before_the_last_ten_thousand_spins():
    assert cuts_before(100_000, 10_000) == [90_000]
    assert cuts_before(1_000_000, 10_000) == [100_000 * n for n in range(1, 10)] + [990_000]
    assert cuts_before(300, 150) == [150]
