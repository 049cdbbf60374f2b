"""Reconciliation's comparison: a record and an operator's list that tell the same rounds (won, refused, timed out
and never applied, applied with the answer lost, refunded) report no difference; each kind of difference injected
into either side is named, with the transaction it concerns."""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seamless.exceptions import SeamlessError
from seamless.reconcile import NO_ANSWER, Kind, Transaction, differences

SCENARIOS = ("won", "refused", "never_applied", "answer_lost", "refunded")


def _ids(n: int) -> tuple[str, str, str]:
    return tuple(str(uuid.UUID(int=n * 10 + k)) for k in (1, 2, 3))


def _tx(kind: str, tx_id: str, n: int, amount: int, status: str, bet: str | None = None, undone=False) -> Transaction:
    return Transaction(tx_id, kind, f"player-{n % 3}", "EUR", amount, f"round-{n}", bet, status, undone)


def round_sides(n: int, scenario: str, stake: int, win: int) -> tuple[list[Transaction], list[Transaction]]:
    """One round as reelstream records it and as the reference wallet lists it."""
    bet, won, back = _ids(n)
    if scenario == "won":
        both = [_tx("bet", bet, n, stake, "OK"), _tx("win", won, n, win, "OK", bet)]
        return both, list(both)
    if scenario == "refused":
        both = [_tx("bet", bet, n, stake, "INSUFFICIENT_FUNDS")]
        return both, list(both)
    if scenario == "never_applied":
        ours = [
            _tx("bet", bet, n, stake, NO_ANSWER, undone=True),
            _tx("rollback", back, n, stake, "UNKNOWN_TRANSACTION", bet),
        ]
        return ours, [_tx("rollback", back, n, 0, "UNKNOWN_TRANSACTION", bet)]
    taken = NO_ANSWER if scenario == "answer_lost" else "OK"
    ours = [_tx("bet", bet, n, stake, taken, undone=True), _tx("rollback", back, n, stake, "OK", bet)]
    return ours, [_tx("bet", bet, n, stake, "OK", undone=True), _tx("rollback", back, n, stake, "OK", bet)]


rounds = st.lists(
    st.tuples(st.sampled_from(SCENARIOS), st.integers(1, 10_000), st.integers(0, 50_000)), min_size=1, max_size=30
)


def _sides(drawn) -> tuple[list[Transaction], list[Transaction]]:
    ours, theirs = [], []
    for n, (scenario, stake, win) in enumerate(drawn):
        mine, yours = round_sides(n, scenario, stake, win)
        ours += mine
        theirs += yours
    return ours, theirs


@settings(max_examples=100, deadline=None)
@given(rounds, st.randoms(use_true_random=False))
def test_a_record_and_a_list_of_the_same_rounds_differ_in_nothing(drawn, random):
    ours, theirs = _sides(drawn)
    random.shuffle(theirs)  # the operator's order is its own
    assert differences(ours, theirs) == []


def _replaced(side: list[Transaction], index: int, **changes) -> list[Transaction]:
    return side[:index] + [dataclasses.replace(side[index], **changes)] + side[index + 1 :]


def _inject(kind: Kind, ours, theirs, pick) -> tuple[list, list, str]:
    """`kind` injected at a transaction `pick` chooses among those it can apply to; the sides and that id."""
    if kind is Kind.UNKNOWN_TO_REELSTREAM:
        extra = _tx("win", str(uuid.uuid4()), 999, 5, "OK", theirs[0].transaction_id)
        return ours, theirs + [extra], extra.transaction_id
    if kind is Kind.ANSWER_MISSING:
        wins = [i for i, t in enumerate(ours) if t.kind == "win"]
        i = pick(wins)
        return _replaced(ours, i, status=NO_ANSWER), theirs, ours[i].transaction_id
    held = {t.transaction_id: i for i, t in enumerate(theirs)}
    candidates = {
        Kind.MISSING_AT_OPERATOR: [i for i, t in enumerate(theirs) if t.status == "OK"],
        Kind.AMOUNT_DIFFERS: [i for i, t in enumerate(theirs) if t.kind != "rollback"],
        Kind.STATUS_DIFFERS: [held[t.transaction_id] for t in ours if t.status and t.transaction_id in held],
        Kind.DETAIL_DIFFERS: list(range(len(theirs))),
        Kind.ROLLBACK_DIFFERS: [i for i, t in enumerate(theirs) if t.kind == "bet" and t.status == "OK"],
        Kind.BET_UNSETTLED: [i for i, t in enumerate(theirs) if t.kind == "win"],
    }[kind]
    i = pick(candidates)
    target = theirs[i]
    if kind in (Kind.MISSING_AT_OPERATOR, Kind.BET_UNSETTLED):
        dropped = theirs[:i] + theirs[i + 1 :]
        return ours, dropped, target.transaction_id if kind is Kind.MISSING_AT_OPERATOR else target.bet_transaction_id
    changes = {
        Kind.AMOUNT_DIFFERS: {"amount_minor": target.amount_minor + 1},
        Kind.STATUS_DIFFERS: {"status": "ERROR" if target.status != "ERROR" else "OK"},
        Kind.DETAIL_DIFFERS: {"player_id": "someone-else"},
        Kind.ROLLBACK_DIFFERS: {"rolled_back": not target.rolled_back},
    }[kind]
    return ours, _replaced(theirs, i, **changes), target.transaction_id


@pytest.mark.parametrize("kind", list(Kind))
@settings(max_examples=40, deadline=None)
@given(drawn=rounds.filter(lambda d: any(s == "won" for s, *_ in d)), data=st.data())
def test_each_injected_difference_is_named_with_its_transaction(kind, drawn, data):
    ours, theirs = _sides(drawn)
    ours, theirs, transaction_id = _inject(kind, ours, theirs, lambda among: data.draw(st.sampled_from(among)))
    found = differences(ours, theirs)
    assert (kind, transaction_id) in {(d.kind, d.transaction_id) for d in found}


def test_a_win_the_operator_lost_is_missing_there_and_leaves_its_bet_unsettled():
    ours, theirs = round_sides(1, "won", 100, 250)
    found = differences(ours, theirs[:1])
    assert [(d.kind, d.transaction_id) for d in found] == [
        (Kind.MISSING_AT_OPERATOR, theirs[1].transaction_id),
        (Kind.BET_UNSETTLED, theirs[0].transaction_id),
    ]
    assert (found[0].ours, found[0].theirs) == ("win OK 250 EUR", "absent")


def test_a_bet_the_operator_rolled_back_without_listing_it_is_missing_there():
    ours, theirs = round_sides(1, "answer_lost", 100, 0)
    (found,) = differences(ours, theirs[1:])
    assert (found.kind, found.transaction_id, found.theirs) == (
        Kind.MISSING_AT_OPERATOR,
        ours[0].transaction_id,
        "absent",
    )


def test_a_changed_amount_names_both_amounts():
    ours, theirs = round_sides(1, "won", 100, 250)
    (found,) = differences(ours, _replaced(theirs, 1, amount_minor=2500))
    assert (found.kind, found.ours, found.theirs) == (Kind.AMOUNT_DIFFERS, "amount_minor 250", "amount_minor 2500")


def test_a_refused_or_undelivered_call_need_not_be_listed_by_the_operator():
    refused, _ = round_sides(1, "refused", 100, 0)
    never, _ = round_sides(2, "never_applied", 100, 0)
    assert differences(refused + never[:1], []) == []


def test_a_transaction_listed_twice_is_refused():
    ours, theirs = round_sides(1, "won", 100, 250)
    with pytest.raises(SeamlessError, match="twice"):
        differences(ours, theirs + theirs[:1])
