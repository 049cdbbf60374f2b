"""A combined spin's WagerDebited is not read: the spin decides nothing on it (its settlement follows in the same wallet
transaction), so the runner skips it before the signature check and the validation. Every other debit is read."""

from __future__ import annotations

import copy
import logging
import uuid

from tests.support.reads import event_message
from services.spin.core.book import SpinBook
from services.spin.core.progress import reads_debit
from shared import records
from shared.events import encode
from shared.topics import WALLET_EVENTS
from tests.support.spin import (
    CLAIM,
    NO_CLAIM,
    NOW_MS,
    Record,
    Seeds,
    debited_for,
    handle_event,
    handle_request,
    make_context,
    only,
    placed_for,
    request_bytes,
    wager_out,
)


def _on_topic(event, writer: str = "wallet") -> Record:
    return Record(WALLET_EVENTS, 0, 7, event.key, encode(event), NOW_MS, tuple(records.headers_for(writer)))


def _accepted(seed: bytes):
    book, ctx = SpinBook(), make_context(Seeds(seed))
    _, raw = request_bytes()
    return book, ctx, wager_out(handle_request(book, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs)


def test_a_combined_spins_debit_is_neither_verified_nor_decoded_and_deciding_it_would_change_nothing(caplog):
    book, ctx, place = _accepted(NO_CLAIM)
    debited, _ = placed_for(place)
    assert not reads_debit(book, debited.data.transaction_id)
    forged = _on_topic(debited, writer="cashier")  # a reader that verified it would quarantine it with an alert
    with caplog.at_level(logging.ERROR, logger="reelstream.spin"):
        assert event_message(WALLET_EVENTS, forged, 0, book) is None
    assert caplog.text == ""
    before = copy.deepcopy(book)
    effects = handle_event(book, ctx, debited)
    assert (effects.journal, effects.outputs) == ([], []) and book == before


def test_an_answered_spins_debit_is_not_read_again():
    book, ctx, place = _accepted(NO_CLAIM)
    debited, settled = placed_for(place)
    only(handle_event(book, ctx, settled).outputs, "answer")
    assert not reads_debit(book, debited.data.transaction_id)
    assert event_message(WALLET_EVENTS, _on_topic(debited), 0, book) is None


def test_a_debit_first_spins_debit_and_an_unknown_wagers_debit_are_read():
    book, ctx, debit = _accepted(CLAIM)
    debited = debited_for(debit)
    assert reads_debit(book, debited.data.transaction_id)
    assert event_message(WALLET_EVENTS, _on_topic(debited), 0, book).payload.id == debited.id
    assert [out.kind for out in handle_event(book, ctx, debited).outputs] == ["contribute", "claim"]
    stranger = SpinBook()
    assert reads_debit(stranger, debited.data.transaction_id)
    assert event_message(WALLET_EVENTS, _on_topic(debited), 0, stranger).payload.id == debited.id


def test_a_debit_that_is_not_plainly_one_is_read_as_any_other_record():
    book, _, place = _accepted(NO_CLAIM)
    debited, _ = placed_for(place)
    value = encode(debited)
    for broken in (value[:-1], value.replace(str(debited.data.transaction_id).encode(), b"not-a-uuid")):
        record = Record(WALLET_EVENTS, 0, 7, debited.key, broken, NOW_MS, tuple(records.headers_for("wallet")))
        assert event_message(WALLET_EVENTS, record, 0, book) is not None  # read: an Undecodable, dead-lettered
    assert not reads_debit(book, debited.data.transaction_id) and reads_debit(book, uuid.uuid4())
