"""A spin request off its key's murmur2 partition: answered WRONG_PARTITION on the player's own partition, no book
changed there or here, and the answer never becomes the request id's answer when the home book is rebuilt."""

from shared.events import broker_time
from shared.events.spin import SeedDrawn
from shared.partitioning import partition_for

from tests.support.spin import NOW_MS, make_context, one, request, request_bytes, spin_core, wager

PARTITIONS = 6
HOME = partition_for(b"p-1", PARTITIONS)
AWAY = (HOME + 1) % PARTITIONS
NOW = broker_time(NOW_MS)


def _away(raw, offset=0):
    return request(raw, b"p-1", NOW_MS, AWAY, offset, PARTITIONS)


def test_a_request_on_another_partition_is_rejected_for_the_players_own_partition_and_touches_no_book():
    request_id, raw = request_bytes()
    refused = spin_core(make_context()).given().when(_away(raw), NOW).then().then_commands().then_answers()
    (reply,) = refused.decision.rerouted
    rejected = reply.data
    assert (rejected.code, rejected.request_id, rejected.player_id) == ("WRONG_PARTITION", request_id, "p-1")
    assert f"hashes to partition {HOME} of {PARTITIONS}" in rejected.message
    assert "murmur2" in rejected.message
    assert reply.key == b"p-1"
    refused.then_dead_letters()
    assert refused.state.records == {}
    assert refused.state.in_flight == {}


def test_the_same_request_on_its_own_partition_is_accepted_after_a_wrong_partition_rejection():
    ctx = make_context()
    request_id, raw = request_bytes()
    (refused,) = spin_core(ctx).given().when(_away(raw), NOW).decision.rerouted
    home = spin_core(ctx).given(refused)  # as a rebuild of the home partition folds it
    assert home.state.records == {}
    accepted = home.when(request(raw, b"p-1", NOW_MS, HOME, 1, PARTITIONS), NOW)
    assert one(accepted.decision.events, SeedDrawn).data.request_id == request_id
    assert wager(accepted.decision).data.amount_minor == 10


def test_a_redelivered_wrong_partition_request_gets_the_same_answer_id():
    ctx = make_context()
    _, raw = request_bytes()
    (first,) = spin_core(ctx).given().when(_away(raw), NOW).decision.rerouted
    (again,) = spin_core(ctx).given().when(_away(raw), NOW).decision.rerouted
    assert first.id == again.id
