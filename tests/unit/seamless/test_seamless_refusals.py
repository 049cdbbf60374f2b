"""An operator's answer in the round's terms: every refusal is one of the spin's codes, a doubtful bet is rolled back,
and only the right answers acknowledge a win or a rollback."""

from __future__ import annotations

import uuid

import pytest

from seamless import refusals
from seamless.hub88 import Hub88Status
from seamless.port import Answered, NoAnswer, NoAnswerReason, Status
from shared.events.spin import REJECTION_CODES

ID = uuid.uuid4()


def answered(status: Status) -> Answered:
    return Answered(request_id=ID, status=status)


def test_every_refusal_maps_to_one_of_the_spins_codes():
    assert set(refusals.SPIN_REFUSAL) == set(Status) - {Status.OK}
    assert set(refusals.SPIN_REFUSAL.values()) <= set(REJECTION_CODES)


@pytest.mark.parametrize(
    ("code", "spin"),
    [
        ("RS_OK", None),
        ("RS_ERROR_NOT_ENOUGH_MONEY", "INSUFFICIENT_FUNDS"),
        ("RS_ERROR_LIMIT_REACHED", "LIMIT_EXCEEDED"),
        ("RS_ERROR_USER_DISABLED", "ACCOUNT_CLOSED"),
        ("RS_ERROR_TOKEN_EXPIRED", "UNAUTHENTICATED"),
        ("RS_ERROR_INVALID_TOKEN", "UNAUTHENTICATED"),
        ("RS_ERROR_WRONG_CURRENCY", "CURRENCY_MISMATCH"),
        ("RS_ERROR_DUPLICATE_TRANSACTION", "DUPLICATE_CONFLICT"),
        ("RS_ERROR_TRANSACTION_ROLLED_BACK", "WAGER_REFUNDED"),
        ("RS_ERROR_UNKNOWN", "WALLET_UNAVAILABLE"),
        ("RS_ERROR_INVALID_SIGNATURE", "WALLET_UNAVAILABLE"),
        ("RS_ERROR_NOT_A_CODE", "WALLET_UNAVAILABLE"),
    ],
)
def test_each_hub88_code_becomes_the_spins_code(code, spin):
    assert refusals.hub88_spin_refusal(code) == spin


def test_every_hub88_code_has_a_meaning():
    for code in Hub88Status:
        spin = refusals.hub88_spin_refusal(code.value)
        assert spin is None if code is Hub88Status.RS_OK else spin in REJECTION_CODES


@pytest.mark.parametrize("reason", list(NoAnswerReason))
def test_a_bet_without_an_answer_is_refused_and_rolled_back(reason):
    outcome = NoAnswer(request_id=ID, reason=reason)
    assert refusals.bet_refusal(outcome) == refusals.WALLET_UNAVAILABLE
    assert refusals.bet_needs_rollback(outcome)


def test_only_an_accepted_bet_or_a_sure_refusal_goes_without_a_rollback():
    unrolled = {status for status in Status if not refusals.bet_needs_rollback(answered(status))}
    assert unrolled == {Status.OK, Status.INSUFFICIENT_FUNDS, Status.LIMIT_REACHED}


def test_a_win_is_acknowledged_by_an_ok_alone():
    assert {status for status in Status if refusals.win_acknowledged(answered(status))} == {Status.OK}
    assert not refusals.win_acknowledged(NoAnswer(request_id=ID, reason=NoAnswerReason.TIMEOUT))


def test_a_rollback_is_acknowledged_when_the_bet_stands_undone():
    done = {status for status in Status if refusals.rollback_acknowledged(answered(status))}
    assert done == {Status.OK, Status.UNKNOWN_TRANSACTION, Status.ALREADY_ROLLED_BACK}
    assert not refusals.rollback_acknowledged(NoAnswer(request_id=ID, reason=NoAnswerReason.LOST))
