"""A wallet fact for a request no spin book holds is named, in the decision on it (the adapter alerts); every other
fact, and every other message, is not."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from types import SimpleNamespace

from services.spin.core.book import SpinBook
from services.spin.core.progress import stray_wager
from shared.events import broker_time
from shared.events.wallet import CommandRejected, DebitWager, Deposited, Posting, WagerDebited, player_account
from tests.support.spin import NOW_MS, debited_for, fact, make_context, request, request_bytes, spin_core, wager

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
SPUN = broker_time(NOW_MS)
POSTINGS = (Posting(account=player_account("p-1"), amount_micro=-1), Posting(account="house", amount_micro=1))


def _debited(request_id: uuid.UUID) -> SimpleNamespace:
    data = WagerDebited(
        transaction_id=request_id,
        player_id="p-1",
        recorded_at=NOW,
        currency="EUR",
        postings=POSTINGS,
        balance_after_minor=0,
        amount_minor=1,
        game="rising-joker",
    )
    return SimpleNamespace(data=data)


def test_a_debit_for_a_request_the_book_holds_is_not_stray_and_one_it_does_not_hold_is():
    known, unknown = uuid.uuid4(), uuid.uuid4()
    book = SpinBook(records={known: object()})
    assert stray_wager(book, _debited(known)) is None
    assert stray_wager(book, _debited(unknown)) == unknown


def test_a_refused_debit_is_judged_by_its_request_and_other_facts_are_none_of_its_business():
    unknown = uuid.uuid4()
    refused = CommandRejected(
        transaction_id=unknown,
        player_id="p-1",
        recorded_at=NOW,
        command_type=DebitWager.TYPE,
        code="INSUFFICIENT_FUNDS",
        message="no money",
    )
    deposited = Deposited(
        transaction_id=uuid.uuid4(),
        player_id="p-1",
        recorded_at=NOW,
        currency="EUR",
        postings=POSTINGS,
        balance_after_minor=1,
        amount_minor=1,
    )
    assert stray_wager(SpinBook(), SimpleNamespace(data=refused)) == unknown
    assert stray_wager(SpinBook(), SimpleNamespace(data=deposited)) is None


def test_the_decision_on_a_wallet_fact_names_its_request_when_no_book_holds_it():
    # Given a book that took a request, its debit is no stray; given an empty book, the same debit is, and the
    # decision says so (the runner raises the alert) while it changes nothing.
    ctx = make_context()
    _, raw = request_bytes()
    given = spin_core(ctx).given()
    debited = debited_for(wager(given.when(request(raw), SPUN).decision))
    assert given.when(fact(debited), SPUN).decision.stray is None
    stray = spin_core(ctx).given().when(fact(debited), SPUN).then().then_commands().then_answers()
    assert stray.decision.stray == debited.data.transaction_id


def test_a_request_is_never_stray():
    ctx = make_context()
    _, raw = request_bytes()
    assert spin_core(ctx).given().when(request(raw), SPUN).decision.stray is None
