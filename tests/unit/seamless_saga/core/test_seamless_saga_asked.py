"""Reelstream's record for reconciliation, folded from the saga's own facts: each call it decided, with the last
answer it got, a bet marked rolled back once its rollback is acknowledged, other operators' rounds left out."""

from __future__ import annotations

from datetime import timedelta

from seamless.port import NoAnswerReason, Status
from seamless.reconcile import NO_ANSWER, Transaction

from services.seamless_saga.core.asked import asked
from tests.support.seamless_saga import OPERATOR, PLAYER, SAGA, T0, answer, debit, no_answer, settle, wager_id


def _played():
    """Round 1 bet and won (the bet's answer delivered twice); round 2 unanswered, then rolled back, the operator
    never having seen the bet."""
    given, events = SAGA.given(), []
    bet_1 = given.when(debit(1), T0).decision.events[0]
    events.append(bet_1)
    events += given.when(answer(bet_1), T0).decision.events
    events += given.when(answer(bet_1), T0).decision.events
    win_1 = given.when(settle(1, 250), T0).decision.events[0]
    events.append(win_1)
    events += given.when(answer(win_1, balance_minor=1_150), T0).decision.events
    bet_2 = given.when(debit(2), T0).decision.events[0]
    events.append(bet_2)
    refused = given.when(no_answer(bet_2, NoAnswerReason.LOST), T0).decision.events
    events += refused
    rollback_2 = next(e for e in refused if type(e.data).__name__ == "SeamlessRollbackDecided")
    later = T0 + timedelta(seconds=1)
    events += given.when(answer(rollback_2, Status.UNKNOWN_TRANSACTION), later).decision.events
    return events, (bet_1, win_1, bet_2, rollback_2)


def _tx(event, kind: str, amount: int, status: str, bet=None, rolled_back=False) -> Transaction:
    round_id = str(event.data.wager_id)
    bet_id = None if bet is None else str(bet.id)
    return Transaction(str(event.id), kind, PLAYER, "EUR", amount, round_id, bet_id, status, rolled_back)


def test_each_call_decided_is_one_transaction_with_the_answer_it_got():
    events, (bet_1, win_1, bet_2, rollback_2) = _played()
    assert asked(events, OPERATOR) == [
        _tx(bet_1, "bet", 100, "OK"),
        _tx(win_1, "win", 250, "OK", bet_1),
        _tx(bet_2, "bet", 100, NO_ANSWER, rolled_back=True),
        _tx(rollback_2, "rollback", 100, "UNKNOWN_TRANSACTION", bet_2),
    ]
    assert str(bet_1.data.wager_id) == str(wager_id(1))


def test_another_operators_rounds_are_not_in_the_record():
    events, _ = _played()
    assert asked(events, "op-other") == []


def test_a_fact_read_twice_is_one_transaction():
    events, _ = _played()
    assert asked(events + events[:1], OPERATOR) == asked(events, OPERATOR)
