"""The audit's remainder rule on a seamless operator's rounds (the real spin core and engine, the saga's core, an
operator wallet): a stake change that strands the ½ cent credits it, rounded up, in the round's one win, and the audit
finds nothing wrong with it; a win that leaves the credit out, credits another amount, or credits a remainder the
spin's journal never stranded is a remainder-credit-mismatch."""

from __future__ import annotations

import pytest

from services.audit.core.audit import run_audit
from shared.events import envelope
from shared.events.seamless import SeamlessWinDecided
from tests.support.remainders import HALF, seed_leaving
from tests.support.seamless_pair import SeamlessPair

HALF_AT_10 = seed_leaving(10, 0, HALF)
ANY_AT_20 = seed_leaving(20, 0, 0)
CHECK = "remainder-credit-mismatch"


def stranded(monkeypatch) -> SeamlessPair:
    pair = SeamlessPair(monkeypatch, HALF_AT_10, ANY_AT_20)
    pair.spin(10)
    pair.spin(20)
    return pair


def remainder_findings(records) -> list:
    return [finding for finding in run_audit(records).discrepancies if finding.check.startswith("remainder")]


def edited_win(pair: SeamlessPair, credited: bool, **changes) -> list:
    """The pair's records with its first win that credits (or does not credit) a remainder changed."""
    for index, (topic, event) in enumerate(pair.facts):
        if isinstance(event.data, SeamlessWinDecided) and bool(event.data.remainder_credit_minor) == credited:
            data = event.data.model_copy(update=changes)
            pair.facts[index] = (topic, envelope(data, source=event.source, time=event.time, id=event.id))
            return pair.records()
    raise AssertionError("no such win")


def test_a_stranded_half_cent_credited_in_the_rounds_win_is_no_finding(monkeypatch):
    assert remainder_findings(stranded(monkeypatch).records()) == []


@pytest.mark.parametrize(
    "credited, changes",
    [
        (True, {"remainder_stranded_micro": None, "remainder_credit_minor": None}),  # the credit left out
        (True, {"remainder_credit_minor": 2}),  # not rounded up to one cent
        (True, {"remainder_credit_minor": 0}),
        (False, {"remainder_stranded_micro": HALF, "remainder_credit_minor": 1}),  # a remainder nobody stranded
    ],
)
def test_a_win_that_breaks_the_remainder_rule_is_a_finding(monkeypatch, credited, changes):
    pair = stranded(monkeypatch)
    found = remainder_findings(edited_win(pair, credited, **changes))
    assert {finding.check for finding in found} == {CHECK}


def test_a_win_whose_amount_leaves_out_its_credit_is_a_finding(monkeypatch):
    pair = stranded(monkeypatch)
    win = next(data for data in pair.seamless if isinstance(data, SeamlessWinDecided) and data.remainder_credit_minor)
    found = remainder_findings(edited_win(pair, True, amount_minor=win.amount_minor - 1))
    assert {finding.check for finding in found} == {CHECK}
