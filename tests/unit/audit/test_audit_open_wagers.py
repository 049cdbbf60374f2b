"""A debit with neither settlement nor refund is in flight until the saga's time limit, and a finding after it.

Scenario: a consistent synthetic history cut right after its last wager debit — that spin is in flight (as a spin
whose request no book knows would stay for ever). Audited within the limit it is clean; audited past it, that one
debit is flagged `wager-open-too-long`; audited at rest (a run's end, nothing in flight), at once.
"""

from __future__ import annotations

from services.audit.core.audit import run_audit
from bench.synthetic.spins import play_history, stand_in_lookup
from shared.config import SAGA_TIME_LIMIT_MS
from shared.events import wallet as wl

from test_audit_tampering import records


def _cut_after_last_debit():
    emitted = play_history(seed=11, players=2, spins_per_player=6).emitted
    last = max(index for index, item in enumerate(emitted) if isinstance(item.envelope.data, wl.WagerDebited))
    return emitted[: last + 1], emitted[last]


def test_an_open_debit_within_the_saga_time_limit_is_in_flight_not_a_finding():
    history, debit = _cut_after_last_debit()
    result = run_audit(records(history), lookup=stand_in_lookup, now_ms=debit.timestamp_ms + SAGA_TIME_LIMIT_MS)
    assert result.discrepancies == []


def test_an_open_debit_past_the_saga_time_limit_is_flagged_once():
    history, debit = _cut_after_last_debit()
    result = run_audit(records(history), lookup=stand_in_lookup, now_ms=debit.timestamp_ms + SAGA_TIME_LIMIT_MS + 1)
    [finding] = result.discrepancies
    assert finding.check == "wager-open-too-long"
    assert finding.subject == f"wager {debit.envelope.data.transaction_id}"
    assert finding.player_id == debit.envelope.data.player_id


def test_without_a_date_the_audit_is_dated_by_the_latest_record_it_read():
    history, _ = _cut_after_last_debit()
    assert run_audit(records(history), lookup=stand_in_lookup).discrepancies == []


def test_at_rest_an_open_debit_is_flagged_however_young():
    history, debit = _cut_after_last_debit()
    result = run_audit(records(history), lookup=stand_in_lookup, now_ms=debit.timestamp_ms, at_rest=True)
    [finding] = result.discrepancies
    assert finding.check == "wager-open-too-long"
    assert finding.subject == f"wager {debit.envelope.data.transaction_id}"


def test_at_rest_a_history_whose_wagers_are_all_closed_is_clean():
    emitted = play_history(seed=11, players=2, spins_per_player=6).emitted
    assert run_audit(records(emitted), lookup=stand_in_lookup, at_rest=True).discrepancies == []
