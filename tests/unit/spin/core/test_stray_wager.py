"""A wallet fact for a request no spin book holds is named (the adapter alerts); every other fact is not."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from types import SimpleNamespace

from services.spin.core.book import SpinBook
from services.spin.core.progress import stray_wager
from shared.events.wallet import CommandRejected, DebitWager, Deposited, Posting, WagerDebited, player_account

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
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
