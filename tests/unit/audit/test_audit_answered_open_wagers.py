"""A saga the spin has given up on is a finding at once: a debit still open once its spin's request has been answered
(rejected) will be closed by no spin, whatever its age; no time limit has to pass first.

Scenario: a consistent synthetic history cut right after its last wager debit, then the spin's rejection of that very
request (as when the wallet refused a copy of its wager command by age and the spin voided a debited spin). Audited
live, at the debit's own broker time, the open debit is flagged `wager-open-after-answer`; without the answer it is in
flight, and so it is when the spin answered one record of the request only (a late repeat refused by age).
"""

from __future__ import annotations

from services.audit.core.audit import run_audit
from bench.synthetic.spins import Emitted, play_history, stand_in_lookup
from shared.events import broker_time, derived_id, envelope
from shared.events import spin as sp
from shared.events.spin import request_answer_id
from shared.events import wallet as wl

from test_audit_tampering import records


def _cut_after_last_debit():
    emitted = play_history(seed=11, players=2, spins_per_player=6).emitted
    last = max(index for index, item in enumerate(emitted) if isinstance(item.envelope.data, wl.WagerDebited))
    return emitted[: last + 1], emitted[last]


def _rejected(debit: Emitted, code: str, record_answer: bool = False) -> Emitted:
    """The spin's rejection of the debit's request: its one answer, or (`record_answer`) an answer to one record."""
    data = debit.envelope.data
    answer = sp.SpinRejected(
        request_id=data.transaction_id,
        player_id=data.player_id,
        game=data.game,
        stake_minor=data.amount_minor,
        currency=data.currency,
        code=code,
        message="the spin's answer",
    )
    at_ms = debit.timestamp_ms + 1
    answer_id = (
        derived_id(data.transaction_id, "rejected", code) if record_answer else request_answer_id(answer.request_id)
    )
    event = envelope(answer, source="test/spin", time=broker_time(at_ms), id=answer_id)
    return Emitted("spin.events", event, at_ms)


def test_an_open_debit_whose_spin_was_answered_is_flagged_at_once():
    history, debit = _cut_after_last_debit()
    answered = [*history, _rejected(debit, "REQUEST_EXPIRED")]
    result = run_audit(records(answered), lookup=stand_in_lookup, now_ms=debit.timestamp_ms + 1)
    [finding] = result.discrepancies
    assert finding.check == "wager-open-after-answer"
    assert finding.subject == f"wager {debit.envelope.data.transaction_id}"
    assert "REQUEST_EXPIRED" in finding.detail


def test_an_open_debit_whose_spin_is_unanswered_is_in_flight():
    history, debit = _cut_after_last_debit()
    assert run_audit(records(history), lookup=stand_in_lookup, now_ms=debit.timestamp_ms + 1).discrepancies == []


def test_an_answer_to_one_record_of_an_in_flight_request_is_not_its_answer():
    history, debit = _cut_after_last_debit()
    late_repeat = [*history, _rejected(debit, "REQUEST_EXPIRED", record_answer=True)]
    assert run_audit(records(late_repeat), lookup=stand_in_lookup, now_ms=debit.timestamp_ms + 1).discrepancies == []


def test_a_history_whose_wagers_are_all_closed_has_no_answered_open_debit():
    emitted = play_history(seed=11, players=2, spins_per_player=6).emitted
    assert run_audit(records(emitted), lookup=stand_in_lookup).discrepancies == []
