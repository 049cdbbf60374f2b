"""The audit's half of the signed-JackpotWon rule: a settlement's jackpot amount must be what the pools paid that wager.

Scenario: the synthetic history of test_audit_tampering (jackpot wins included); one settlement is edited to credit
more from the jackpot than its JackpotWon paid, another to credit a jackpot amount to a wager no pool paid.
"""

from __future__ import annotations

import pytest

from bench.synthetic.spins import play_history
from shared.events import wallet as wl
from tests.unit.audit.test_audit_tampering import audit, first, replaced


@pytest.fixture(scope="module")
def history():
    return play_history(seed=7)


def credit_findings(result) -> list:
    return [finding for finding in result.discrepancies if finding.check == "jackpot-credit-mismatch"]


def test_a_settlement_crediting_more_than_its_jackpot_won_is_named(history):
    index = first(history.emitted, wl.WagerSettled, lambda data: data.jackpot_win_minor > 0)
    settled = history.emitted[index].envelope.data
    (found,) = credit_findings(audit(replaced(history.emitted, index, jackpot_win_minor=settled.jackpot_win_minor + 1)))
    assert found.subject == f"wager {settled.wager_id}"
    assert f"pools paid {settled.jackpot_win_minor}" in found.detail


def test_a_jackpot_amount_for_a_wager_no_pool_paid_is_named(history):
    index = first(history.emitted, wl.WagerSettled, lambda data: data.jackpot_win_minor == 0)
    settled = history.emitted[index].envelope.data
    (found,) = credit_findings(audit(replaced(history.emitted, index, jackpot_win_minor=500)))
    assert found.subject == f"wager {settled.wager_id}" and "pools paid 0" in found.detail
