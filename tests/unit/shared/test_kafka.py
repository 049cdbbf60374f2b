"""The Kafka client factories pass the safety options explicitly, and kafka-python checks CRCs in C."""

from __future__ import annotations

from shared.kafka import AIOKAFKA_PRODUCER_SAFETY, CONSUMER_SAFETY, PRODUCER_SAFETY


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


def test_aiokafka_still_builds_each_fetch_request_from_the_attributes_fetch_pacing_sets():
    import inspect

    from aiokafka.consumer.consumer import AIOKafkaConsumer
    from aiokafka.consumer.fetcher import Fetcher

    building = inspect.getsource(Fetcher._get_actions_per_node)
    assert "self._fetch_max_wait_ms" in building and "self._fetch_min_bytes" in building
    assert "self._fetcher = Fetcher(" in inspect.getsource(AIOKafkaConsumer.start)
