"""The audit reconciles outstanding remainders: the wallet's record (settlements, credits) against the spins' state
chain, through a stake change, a self-exclusion and a closure with a spin in flight; a credit that breaks the rounding
rule, and a record the spins disagree with, are findings; the liability report sums what is outstanding."""

from __future__ import annotations

from datetime import timedelta

from services.audit.core.audit import run_audit
from services.audit.core.pools import Pools
from services.audit.core.remainders import report_rows
from services.audit.core.reports import ggr_rows, liability_rows
from services.audit.core.seam import cut, decode_seam, encode_seam
from shared.events import envelope
from shared.events.wallet import CloseAccount, RemainderCredited, SelfExclude, WagerSettled
from tests.support.remainders import HALF, NOW, Pair, seed_leaving
from tests.support.wallet import tx

HALF_AT_10 = seed_leaving(10, 0, HALF)
ANY_AT_20 = seed_leaving(20, 0, 0)
COMPLETE_AT_10 = seed_leaving(10, HALF, 0)


def eventful() -> Pair:
    """½ cent left, stranded by a stake change, left again, credited at a short self-exclusion, then play again."""
    pair = Pair(HALF_AT_10, ANY_AT_20, HALF_AT_10, HALF_AT_10)
    pair.spin(10)
    pair.spin(20)
    pair.spin(10)
    pair.cashier(SelfExclude(transaction_id=tx(2), player_id="p-1", until=NOW + timedelta(seconds=1)))
    pair.now_ms += 2_000
    assert pair.spin(10).state_before == {"remainder_micro": 0}
    return pair


def test_a_history_of_stake_change_and_self_exclusion_credits_reconciles_with_no_finding():
    pair = eventful()
    result = run_audit(pair.records())
    assert result.discrepancies == []
    assert {key: r.micro for key, r in result.ledger.remainders.items()} == {("p-1", "rising-joker"): HALF}


def test_a_closure_with_a_spin_in_flight_reconciles_with_no_finding():
    pair = Pair(HALF_AT_10, COMPLETE_AT_10)
    pair.spin(10)
    flying = pair.request(10)
    pair.cashier(CloseAccount(transaction_id=tx(2), player_id="p-1"))
    pair.follow(flying)
    assert run_audit(pair.records()).discrepancies == []


def test_the_liability_report_sums_the_outstanding_remainders_and_the_spins_must_agree():
    pair = Pair(HALF_AT_10)
    pair.spin(10)
    result = run_audit(pair.records())
    assert result.discrepancies == []
    assert report_rows(result.ledger.remainders) == [{"currency": "EUR", "players": 1, "outstanding_micro": HALF}]
    forged = _edited(pair, WagerSettled, remainder_after_micro=0)  # the wallet's record loses the ½ cent
    assert {f.check for f in run_audit(forged).discrepancies} == {"remainder-mismatch"}


def test_a_credit_not_rounded_up_to_the_cent_is_a_finding():
    pair = Pair(HALF_AT_10)
    pair.spin(10)
    pair.cashier(SelfExclude(transaction_id=tx(2), player_id="p-1", until=NOW + timedelta(hours=1)))
    forged = _edited(pair, RemainderCredited, amount_minor=2)
    assert "remainder-credit-mismatch" in {f.check for f in run_audit(forged).discrepancies}


def _edited(pair: Pair, kind, **changes):
    """The pair's records with the first fact of `kind` changed (its postings follow the amounts)."""
    for index, (topic, event) in enumerate(pair.facts):
        if isinstance(event.data, kind):
            data = event.data.model_copy(update=changes)
            pair.facts[index] = (topic, envelope(data, source=event.source, time=event.time, id=event.id))
            break
    return pair.records()


def test_an_audit_resumed_from_a_checkpoint_at_any_record_reconciles_as_the_full_audit_does():
    read = eventful().records()
    full = run_audit(read)
    for at in range(1, len(read)):
        head = run_audit(read[:at])
        ends: dict[tuple[str, int], int] = {}
        for record in read[:at]:
            ends[(record.topic, record.partition)] = record.offset + 1
        for retire_after_ms in (0, 10**12):
            seam = decode_seam(encode_seam(cut(head, ends, retire_after_ms=retire_after_ms)))
            tail = run_audit(read[at:], seam=seam)
            assert tail.discrepancies == [], at
            assert tail.ledger.remainders == full.ledger.remainders, at


def test_the_reports_show_what_is_outstanding_and_what_the_house_credited():
    pair = Pair(HALF_AT_10, HALF_AT_10)
    pair.spin(10)
    pair.cashier(SelfExclude(transaction_id=tx(2), player_id="p-1", until=NOW + timedelta(seconds=1)))
    pair.now_ms += 2_000
    pair.spin(10)
    ledger = run_audit(pair.records()).ledger
    (owed,) = [row for row in liability_rows(Pools(), None, ledger) if row["kind"] == "remainders"]
    assert (owed["currency"], owed["level_micro"]) == ("EUR", HALF)
    (day,) = ggr_rows(ledger)
    assert day["remainder_credits_minor"] == 1
    assert (
        day["ggr_micro"] == (day["stakes_minor"] - day["house_wins_minor"] - 1) * 1_000_000 - day["contributions_micro"]
    )
