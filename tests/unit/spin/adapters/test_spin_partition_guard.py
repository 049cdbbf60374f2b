"""The spin runner's guards on its other inputs: a wallet fact off its key's murmur2 partition is quarantined with
an alert, never decided; a wallet fact for a request no book holds raises the stray-wager alert; answers go by their
key (a refusal naming another player than the partition's lands on that player's partition)."""

from __future__ import annotations

import logging

from services.spin.adapters.runner import SPECS, SnapshotPolicy, SpinRunner
from tests.support.reads import event_message
from services.spin.core.book import SpinBook
from shared import inbound, records
from shared.config import load_settings
from shared.events import encode
from shared.partitioning import partition_for
from shared.topics import WALLET_EVENTS
from tests.support.spin import (
    wager_out,
    NOW_MS,
    Record,
    debited_for,
    decoded,
    handle_request,
    make_context,
    only,
    request_bytes,
)

PARTITIONS = 6
HOME = partition_for(b"p-1", PARTITIONS)
AWAY = (HOME + 1) % PARTITIONS


def _debited(book: SpinBook, partition: int):
    """A WagerDebited for a request the book accepted, as the wallet wrote it, on `partition` of wallet.events."""
    _, raw = request_bytes()
    debit = wager_out(handle_request(book, make_context(), raw, b"p-1", NOW_MS, HOME, 0, PARTITIONS).outputs)
    event = debited_for(debit)
    record = Record(WALLET_EVENTS, partition, 7, b"p-1", encode(event), NOW_MS, tuple(records.headers_for("wallet")))
    return event, record


def test_a_wallet_fact_off_its_players_partition_is_quarantined_with_an_alert(caplog):
    _, record = _debited(SpinBook(), AWAY)
    with caplog.at_level(logging.ERROR, logger="reelstream.spin"):
        assert event_message(WALLET_EVENTS, record, PARTITIONS) is None
    assert "quarantined, not applied" in caplog.text and f"hashes to partition {HOME}" in caplog.text


def test_a_wallet_fact_on_its_players_partition_is_decoded_and_without_a_count_not_checked():
    event, home = _debited(SpinBook(), HOME)
    assert event_message(WALLET_EVENTS, home, PARTITIONS).payload.id == event.id
    _, away = _debited(SpinBook(), AWAY)
    assert event_message(WALLET_EVENTS, away, 0).payload.id is not None


def test_a_wallet_fact_for_a_request_no_book_holds_raises_the_stray_wager_alert(caplog):
    # The core judges the fact stray (SpinDecision.stray); the runner only logs its judgement.
    known = SpinBook()
    event, record = _debited(known, HOME)
    runner = SpinRunner(load_settings(), make_context(), SnapshotPolicy(enabled=False))
    with caplog.at_level(logging.ERROR, logger="reelstream.spin"):
        runner.decide(HOME, known, [inbound.read(SPECS[WALLET_EVENTS], record, PARTITIONS)])
        assert "stray" not in caplog.text and "no spin book knows" not in caplog.text
        runner.decide(HOME, SpinBook(), [inbound.read(SPECS[WALLET_EVENTS], record, PARTITIONS)])
    assert "alert:" in caplog.text and "no spin book knows" in caplog.text
    assert str(event.data.transaction_id) in caplog.text


def test_answers_go_by_their_key_a_refusal_of_another_players_record_to_that_players_partition():
    _, raw = request_bytes(player="p-2")
    effects = handle_request(SpinBook(), make_context(), raw, b"p-1", NOW_MS, HOME, 0, PARTITIONS)
    answer = only(effects.outputs, "answer")
    assert decoded(answer).code == "INVALID_REQUEST"
    assert answer.key == b"p-2"
    assert answer.partition is None  # the producer's murmur2 partitioner: p-2's partition, not this book's


def test_a_request_off_its_partition_is_answered_alone_by_its_key_on_the_players_own_partition():
    _, raw = request_bytes()
    effects = handle_request(SpinBook(), make_context(), raw, b"p-1", NOW_MS, AWAY, 0, PARTITIONS)
    assert effects.journal == []
    assert [out.kind for out in effects.outputs] == ["home-answer"]
    reply = only(effects.outputs, "home-answer")
    assert decoded(reply).code == "WRONG_PARTITION"
    assert reply.key == b"p-1"
    assert reply.partition is None  # the producer's murmur2 partitioner picks the home one
