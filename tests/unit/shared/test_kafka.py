"""The Kafka client factories pass the safety options explicitly, and kafka-python checks CRCs in C."""

from __future__ import annotations

from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, CONSUMER_SAFETY, PRODUCER_SAFETY, aio_producer


def test_producers_wait_for_all_in_sync_replicas_and_are_idempotent():
    assert PRODUCER_SAFETY["acks"] == "all"
    assert PRODUCER_SAFETY["enable_idempotence"] is True
    assert PRODUCER_SAFETY["max_in_flight_requests_per_connection"] <= 5
    assert AIOKAFKA_PRODUCER_SAFETY["acks"] == "all"
    assert AIOKAFKA_PRODUCER_SAFETY["enable_idempotence"] is True


def test_consumers_commit_explicitly_and_never_read_aborted_writes():
    assert CONSUMER_SAFETY["enable_auto_commit"] is False
    assert CONSUMER_SAFETY["isolation_level"] == "read_committed"
    assert CONSUMER_SAFETY["auto_offset_reset"] == "earliest"


def test_kafka_python_uses_the_c_crc32c_not_its_pure_python_fallback():
    from kafka.record import util
    from kafka.record._crc32c import crc as pure_python_crc

    assert util._crc32c is not pure_python_crc


def test_the_services_fetch_with_a_short_wait_unless_told_otherwise():
    from shared.kafka import service_fetch_options

    assert service_fetch_options({}) == {"fetch_max_wait_ms": 25, "fetch_min_bytes": 1}
    assert service_fetch_options({"REELSTREAM_FETCH_MAX_WAIT_MS": "100", "REELSTREAM_FETCH_MIN_BYTES": "4096"}) == {
        "fetch_max_wait_ms": 100,
        "fetch_min_bytes": 4096,
    }


def test_the_services_fetch_in_coalesced_ticks_while_records_flow_unless_told_otherwise():
    from shared.kafka import busy_fetch_options

    assert busy_fetch_options({}) == {"fetch_max_wait_ms": 10, "fetch_min_bytes": 65536}
    assert busy_fetch_options({"REELSTREAM_FETCH_BUSY_MAX_WAIT_MS": "5", "REELSTREAM_FETCH_BUSY_MIN_BYTES": "1"}) == {
        "fetch_max_wait_ms": 5,
        "fetch_min_bytes": 1,
    }


class _Fetcher:
    _fetch_max_wait_ms = 25
    _fetch_min_bytes = 1


class _Consumer:
    def __init__(self) -> None:
        self._fetcher = _Fetcher()


def test_fetch_pacing_switches_to_the_busy_options_after_records_and_back_after_an_empty_poll():
    from shared.kafka import FetchPacing

    pacing, consumer = (
        FetchPacing(
            {"fetch_max_wait_ms": 25, "fetch_min_bytes": 1}, {"fetch_max_wait_ms": 10, "fetch_min_bytes": 65536}
        ),
        _Consumer(),
    )
    pacing.after_poll(consumer, True)
    assert (consumer._fetcher._fetch_max_wait_ms, consumer._fetcher._fetch_min_bytes) == (10, 65536)
    pacing.after_poll(consumer, True)
    assert (consumer._fetcher._fetch_max_wait_ms, consumer._fetcher._fetch_min_bytes) == (10, 65536)
    pacing.after_poll(consumer, False)
    assert (consumer._fetcher._fetch_max_wait_ms, consumer._fetcher._fetch_min_bytes) == (25, 1)


def test_the_services_fetch_with_a_long_wait_after_a_second_without_records_unless_told_otherwise():
    from shared.kafka import quiet_fetch_options

    assert quiet_fetch_options({}) == {"fetch_max_wait_ms": 500, "fetch_min_bytes": 1, "quiet_after_ms": 1000}
    told = {"REELSTREAM_FETCH_QUIET_MAX_WAIT_MS": "250", "REELSTREAM_FETCH_QUIET_AFTER_MS": "0"}
    assert quiet_fetch_options(told) == {"fetch_max_wait_ms": 250, "fetch_min_bytes": 1, "quiet_after_ms": 0}


def _paced(quiet_after_ms: int = 1000):
    from shared.kafka import FetchPacing

    idle, busy = {"fetch_max_wait_ms": 25, "fetch_min_bytes": 1}, {"fetch_max_wait_ms": 10, "fetch_min_bytes": 65536}
    quiet = {"fetch_max_wait_ms": 500, "fetch_min_bytes": 1, "quiet_after_ms": quiet_after_ms}
    return FetchPacing(idle, busy, quiet), _Consumer()


def _fetching(consumer) -> tuple[int, int]:
    return consumer._fetcher._fetch_max_wait_ms, consumer._fetcher._fetch_min_bytes


def test_fetch_pacing_waits_long_once_no_record_has_come_for_a_second_and_coalesces_again_at_the_next_record():
    pacing, consumer = _paced()
    pacing.after_poll(consumer, True, now=100.0)
    pacing.after_poll(consumer, False, now=100.5)
    assert _fetching(consumer) == (25, 1)
    pacing.after_poll(consumer, False, now=101.0)
    assert _fetching(consumer) == (500, 1)
    pacing.after_poll(consumer, True, now=130.0)
    assert _fetching(consumer) == (10, 65536)
    pacing.after_poll(consumer, False, now=130.2)
    assert _fetching(consumer) == (25, 1)


def test_fetch_pacing_never_waits_long_when_told_not_to_or_before_a_second_has_passed_since_it_started():
    pacing, consumer = _paced(quiet_after_ms=0)
    pacing.after_poll(consumer, False, now=0.0)
    pacing.after_poll(consumer, False, now=3600.0)
    assert _fetching(consumer) == (25, 1)
    pacing, consumer = _paced()
    pacing.after_poll(consumer, False, now=50.0)
    pacing.after_poll(consumer, False, now=50.9)
    assert _fetching(consumer) == (25, 1)


def test_aiokafka_still_builds_each_fetch_request_from_the_attributes_fetch_pacing_sets():
    import inspect

    from aiokafka.consumer.consumer import AIOKafkaConsumer
    from aiokafka.consumer.fetcher import Fetcher

    building = inspect.getsource(Fetcher._get_actions_per_node)
    assert "self._fetch_max_wait_ms" in building and "self._fetch_min_bytes" in building
    assert "self._fetcher = Fetcher(" in inspect.getsource(AIOKafkaConsumer.start)


def test_the_platform_topics_are_compressed_unless_told_otherwise():
    from shared.kafka import platform_topics_compressed

    assert platform_topics_compressed({}) is True
    assert platform_topics_compressed({"REELSTREAM_PLATFORM_COMPRESSION": "none"}) is False


async def _batch_after_one_record(topic: str, compressed) -> object:
    """The batch builder aiokafka's accumulator holds for `topic` after one record (a producer never started)."""
    from aiokafka.structs import TopicPartition

    from shared.kafka import compress_by_topic

    producer = aio_producer("localhost:1", **AIOKAFKA_PRODUCER_SAFETY)
    try:
        if compressed is not None:
            compress_by_topic(producer, compressed)
        tp = TopicPartition(topic, 0)
        await producer._message_accumulator.add_message(tp, b"k", b'{"a": "' + b"x" * 500 + b'"}', timeout=1)
        return producer._message_accumulator._batches[tp][-1]
    finally:
        await producer.stop()


async def test_a_producer_writes_zstd_batches_to_the_topics_named_compressed_and_plain_ones_to_the_others():
    from aiokafka.record.default_records import DefaultRecordBatch

    from shared.record_batches import read_batch

    compressed = await _batch_after_one_record("x.spin.journal", lambda topic: topic.endswith("journal"))
    plain = await _batch_after_one_record("x.spin.events", lambda topic: topic.endswith("journal"))

    compressed_bytes, plain_bytes = bytes(compressed.get_data_buffer()), bytes(plain.get_data_buffer())
    assert compressed_bytes[22] & 0x07 == DefaultRecordBatch.CODEC_ZSTD  # attributes (int16 at 21): the codec
    assert plain_bytes[22] & 0x07 == 0
    assert len(compressed_bytes) < len(plain_bytes)
    assert [fields[4] for fields in read_batch(compressed_bytes)] == [fields[4] for fields in read_batch(plain_bytes)]


def test_aiokafka_still_builds_each_new_batch_empty_and_appends_it_at_once():
    import inspect

    from aiokafka.producer.message_accumulator import BatchBuilder, MessageAccumulator

    adding = inspect.getsource(MessageAccumulator.add_message)
    assert "builder = self.create_builder()\n                batch = self._append_batch(builder, tp)" in adding
    assert "self._compression_type," in inspect.getsource(MessageAccumulator.create_builder)
    assert "self._relative_offset = 0" in inspect.getsource(BatchBuilder.__init__)


def test_a_loop_that_does_not_coalesce_fetches_flowing_records_as_it_fetches_when_idle():
    from shared.kafka import FetchPacing

    coalescing, consumer = FetchPacing.from_env({}), _Consumer()
    coalescing.after_poll(consumer, True)
    assert _fetching(consumer) == (10, 65536)
    each, consumer = FetchPacing.from_env({}, coalesce=False), _Consumer()
    each.after_poll(consumer, True, now=100.0)
    assert _fetching(consumer) == (25, 1)
    each.after_poll(consumer, False, now=102.0)  # and still turns quiet when nothing comes
    assert _fetching(consumer) == (500, 1)


async def test_a_fencing_start_asks_for_its_id_again_soon_and_keeps_the_producers_backoff_after():
    """start_fencing sets the retry backoff aiokafka's InitProducerId handler reads (pinned: this fails if it moves)
    for the start alone."""
    from aiokafka.producer.sender import InitPIDHandler

    from shared.kafka import FENCE_RETRY_MS, start_fencing

    producer = aio_producer("localhost:1", transactional_id="t-p0", **AIOKAFKA_PRODUCER_SAFETY)
    seen = []

    async def start():
        seen.append(InitPIDHandler(producer._sender)._default_backoff)

    producer.start = start
    try:
        await start_fencing(producer)
        assert seen == [FENCE_RETRY_MS / 1000]
        assert InitPIDHandler(producer._sender)._default_backoff == 0.1, "the producer's own backoff, after"
    finally:
        await producer.stop()
