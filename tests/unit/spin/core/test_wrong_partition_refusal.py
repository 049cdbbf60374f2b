"""A spin request off its key's murmur2 partition: answered WRONG_PARTITION on the player's own partition, no book
changed there or here, and the answer never becomes the request id's answer when the home book is rebuilt."""

from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook
from shared.events import decode
from shared.partitioning import partition_for

from tests.support.spin import handle_request, NOW_MS, decoded, make_context, only, read_back, request_bytes, wager_out

PARTITIONS = 6
HOME = partition_for(b"p-1", PARTITIONS)
AWAY = (HOME + 1) % PARTITIONS


def test_a_request_on_another_partition_is_rejected_for_the_players_own_partition_and_touches_no_book():
    book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes()
    effects = handle_request(book, ctx, raw, b"p-1", NOW_MS, AWAY, 0, PARTITIONS)
    reply = only(effects.outputs, "home-answer")
    rejected = decoded(reply)
    assert (rejected.code, rejected.request_id, rejected.player_id) == ("WRONG_PARTITION", request_id, "p-1")
    assert f"hashes to partition {HOME} of {PARTITIONS}" in rejected.message
    assert "murmur2" in rejected.message
    assert reply.key == b"p-1"
    assert reply.partition is None  # the producer's murmur2 partitioner picks the home one
    assert effects.journal == []
    assert [out.kind for out in effects.outputs] == ["home-answer"]
    assert book.records == {}
    assert book.in_flight == {}


def test_the_same_request_on_its_own_partition_is_accepted_after_a_wrong_partition_rejection():
    home_book, ctx = SpinBook(), make_context()
    request_id, raw = request_bytes()
    refused = only(handle_request(SpinBook(), ctx, raw, b"p-1", NOW_MS, AWAY, 0, PARTITIONS).outputs, "home-answer")
    fold.evolve(home_book, read_back(decode(refused.value), refused.value))  # as a rebuild of the home partition does
    assert home_book.records == {}
    effects = handle_request(home_book, ctx, raw, b"p-1", NOW_MS, HOME, 1, PARTITIONS)
    assert decoded(only(effects.journal, "seed")).request_id == request_id
    assert decoded(wager_out(effects.outputs)).amount_minor == 10


def test_a_redelivered_wrong_partition_request_gets_the_same_answer_id():
    ctx = make_context()
    _, raw = request_bytes()
    first = only(handle_request(SpinBook(), ctx, raw, b"p-1", NOW_MS, AWAY, 0, PARTITIONS).outputs, "home-answer")
    again = only(handle_request(SpinBook(), ctx, raw, b"p-1", NOW_MS, AWAY, 0, PARTITIONS).outputs, "home-answer")
    assert decode(first.value).id == decode(again.value).id
