"""Both client libraries read fetched batches through shared/record_batches.py: a header name that is not UTF-8 loses
and reorders nothing, and a batch that inflates past the bound, or does not parse, reads as one placeholder record.

Batches are real Kafka v2 batches built by kafka-python's builder; a header name's raw bytes go in through a str whose
encode() returns them (the builder encodes each name itself). They are read the way each fetcher reads a fetch
response: the fetcher module's MemoryRecords, then its PartitionRecords.
"""

from __future__ import annotations

import functools
import struct
from collections import namedtuple
from typing import Any

import aiokafka.consumer.fetcher as aiokafka_fetcher
import aiokafka.record.default_records as aiokafka_batches
import aiokafka.record.memory_records as aiokafka_memory
import kafka.consumer.fetcher as kafka_fetcher
import kafka.record.memory_records as kafka_memory
import pytest
from aiokafka.structs import TopicPartition as AiokafkaPartition
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.util import calc_crc32c
from kafka.structs import TopicPartition as KafkaPartition

from shared import record_batches
from shared.headers import REFUSED_BATCH
from shared.record_batches import MAX_INFLATED_BYTES

NONE, GZIP, SNAPPY, LZ4, ZSTD = range(5)
CODECS = {"none": NONE, "gzip": GZIP, "snappy": SNAPPY, "lz4": LZ4, "zstd": ZSTD}
COMPRESSED = {name: codec for name, codec in CODECS.items() if codec != NONE}
# kafka-python's AbortedTransaction, as its fetcher reads it
Aborted = namedtuple("Aborted", "producer_id first_offset")


@pytest.fixture(autouse=True, scope="module")
def _installed():
    record_batches.install()


class Raw(str):
    """A header name the builder writes as these exact bytes."""

    def __new__(cls, raw: bytes) -> "Raw":
        name = super().__new__(cls, "raw")
        name.raw = raw
        return name

    def encode(self, *_: Any, **__: Any) -> bytes:
        return self.raw


def batch(records: list[tuple], codec: int = NONE, base_offset: int = 0, **producer: Any) -> bytes:
    """A v2 batch of (key, value, [(name bytes, value)]) records, timestamps 1000, 1001, ..."""
    options = {"is_transactional": 0, "producer_id": -1, "producer_epoch": -1, "base_sequence": -1, **producer}
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=codec, batch_size=1 << 26, **options)
    for delta, (key, value, headers) in enumerate(records):
        builder.append(delta, timestamp=1000 + delta, key=key, value=value, headers=[(Raw(n), v) for n, v in headers])
    data = bytearray(builder.build())
    struct.pack_into(">q", data, 0, base_offset)
    return bytes(data)


def with_crc(data: bytearray) -> bytes:
    """The batch with its CRC-32C made right again (the fetchers check it before reading)."""
    struct.pack_into(">I", data, 17, calc_crc32c(bytes(data[21:])))
    return bytes(data)


def read_aiokafka(data: bytes, memory=None, committed: bool = False, aborted=()) -> list:
    isolation = aiokafka_fetcher.READ_COMMITTED if committed else aiokafka_fetcher.READ_UNCOMMITTED
    records = (memory or aiokafka_fetcher.MemoryRecords)(data)
    tp = AiokafkaPartition("t", 0)
    return list(aiokafka_fetcher.PartitionRecords(tp, records, list(aborted), 0, None, None, True, isolation))


def read_aiokafka_python(data: bytes, **options: Any) -> list:
    """aiokafka with its pure-Python readers (as without its C extensions)."""
    memory, batch_type = record_batches.AiokafkaRecords.native, aiokafka_memory.DefaultRecordBatch
    record_batches.AiokafkaRecords.native = aiokafka_memory._MemoryRecordsPy
    aiokafka_memory.DefaultRecordBatch = aiokafka_batches._DefaultRecordBatchPy
    try:
        return read_aiokafka(data, **options)
    finally:
        record_batches.AiokafkaRecords.native, aiokafka_memory.DefaultRecordBatch = memory, batch_type


def read_kafka(data: bytes, memory=None, partitions=None, committed: bool = False, aborted=()) -> list:
    isolation = (
        kafka_fetcher.IsolationLevel.READ_COMMITTED if committed else kafka_fetcher.IsolationLevel.READ_UNCOMMITTED
    )
    records = (memory or kafka_fetcher.MemoryRecords)(data)
    partition_records = (partitions or kafka_fetcher.Fetcher.PartitionRecords)(
        0,
        KafkaPartition("t", 0),
        records,
        isolation_level=isolation,
        aborted_transactions=[Aborted(*a) for a in aborted],
    )
    return partition_records.take()


def read_aiokafka_unpatched(data: bytes, **options: Any) -> list:
    return read_aiokafka(data, memory=aiokafka_memory.MemoryRecords, **options)


def read_kafka_unpatched(data: bytes, **options: Any) -> list:
    unpatched = record_batches.KafkaPartitionRecords.__bases__[0]
    return read_kafka(data, memory=kafka_memory.MemoryRecords, partitions=unpatched, **options)


READERS = {"aiokafka": read_aiokafka, "aiokafka-python": read_aiokafka_python, "kafka-python": read_kafka}
UNPATCHED = {"aiokafka": read_aiokafka_unpatched, "kafka-python": read_kafka_unpatched}


def as_written(consumed: list) -> list[tuple]:
    """(offset, timestamp, key, value, [(name bytes, value)]) of each consumed record; every name a plain str."""
    for record in consumed:
        assert all(type(name) is str for name, _ in record.headers)
    return [
        (r.offset, r.timestamp, r.key, r.value, [(n.encode("utf-8", "surrogateescape"), v) for n, v in r.headers])
        for r in consumed
    ]


def expected(records: list[tuple], base_offset: int = 0) -> list[tuple]:
    return [(base_offset + i, 1000 + i, k, v, list(h)) for i, (k, v, h) in enumerate(records)]


@pytest.mark.parametrize("codec", CODECS.values(), ids=CODECS.keys())
@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_records_before_at_and_after_a_header_name_that_is_not_utf8_come_back_in_order(reader, codec):
    first = [(b"k0", b"v0", [(b"a", b"1")]), (b"k1", b"v1", [(b"ok", None), (b"\xff\xfe", b"2")]), (b"k2", None, [])]
    later = [(None, b"v3", [(b"c", b"3")])]
    consumed = reader(batch(first, codec) + batch(later, codec, base_offset=3))
    assert as_written(consumed) == expected(first) + expected(later, base_offset=3)


@pytest.mark.parametrize("library", UNPATCHED)
def test_a_header_name_that_is_not_utf8_stops_the_unpatched_library(library):
    with pytest.raises(Exception) as raised:
        UNPATCHED[library](batch([(b"k", b"v", [(b"\xff\xfe", b"x")])]))
    assert "utf-8" in str(raised.value)


@pytest.mark.parametrize("codec", CODECS.values(), ids=CODECS.keys())
@pytest.mark.parametrize("library", UNPATCHED)
def test_batches_the_library_reads_come_back_exactly_as_the_unpatched_library_reads_them(library, codec):
    records = [(b"k%d" % i, b"v" * i, [(b"h%d" % i, b"x")]) for i in range(50)]
    data = batch(records, codec) + batch(records, codec, base_offset=50)
    assert READERS[library](data) == UNPATCHED[library](data)


@pytest.mark.parametrize("library", UNPATCHED)
def test_a_committed_transaction_and_its_marker_read_as_the_unpatched_library_reads_them(library):
    transactional = {"is_transactional": 1, "producer_id": 7, "producer_epoch": 0, "base_sequence": 0}
    data = batch([(b"k", b"v", [])], **transactional) + control_batch(commit=True, base_offset=1, **transactional)
    assert READERS[library](data, committed=True) == UNPATCHED[library](data, committed=True)
    assert [r.offset for r in READERS[library](data, committed=True)] == [0]


@pytest.mark.parametrize("library", UNPATCHED)
def test_an_aborted_transaction_stays_unread(library):
    transactional = {"is_transactional": 1, "producer_id": 7, "producer_epoch": 0, "base_sequence": 0}
    data = batch([(b"k", b"v", [])], **transactional) + control_batch(commit=False, base_offset=1, **transactional)
    assert READERS[library](data, committed=True, aborted=[(7, 0)]) == []


def control_batch(commit: bool, base_offset: int, **producer: Any) -> bytes:
    data = bytearray(batch([(struct.pack(">hh", 0, int(commit)), b"\x00\x00\x00\x00\x00\x00", [])], **producer))
    struct.pack_into(">q", data, 0, base_offset)
    struct.pack_into(">h", data, 21, struct.unpack_from(">h", data, 21)[0] | 0x20)  # the control bit
    return with_crc(data)


@functools.cache
def bomb(codec: int) -> bytes:
    """Two records at offsets 5 and 6 whose zeros alone fill the bound: together they inflate past it."""
    half = bytes(MAX_INFLATED_BYTES // 2)
    return batch([(None, half, []), (None, half, [])], codec, base_offset=5)


@pytest.mark.parametrize("codec", COMPRESSED.values(), ids=COMPRESSED.keys())
@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_batch_that_inflates_past_the_bound_reads_as_one_placeholder_at_its_last_offset(reader, codec):
    name = next(name for name, c in CODECS.items() if c == codec)
    after = batch([(b"k", b"after", [])], base_offset=7)
    consumed = reader(bomb(codec) + after)
    assert len(bomb(codec)) < 1024 * 1024  # the broker takes it
    assert [(r.offset, r.key, r.value) for r in consumed] == [(6, None, bomb(codec)), (7, b"k", b"after")]
    assert list(consumed[0].headers) == [
        (REFUSED_BATCH, f"{name} batch inflates past {MAX_INFLATED_BYTES} bytes".encode())
    ]


@pytest.mark.parametrize("codec", COMPRESSED.values(), ids=COMPRESSED.keys())
@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_compressed_batch_well_under_the_bound_reads_as_written(reader, codec):
    records = [(b"k", bytes(MAX_INFLATED_BYTES // 4), [(b"\xff", b"x")]), (b"k", b"small", [])]
    assert as_written(reader(batch(records, codec))) == expected(records)


@pytest.mark.parametrize("codec", COMPRESSED.values(), ids=COMPRESSED.keys())
@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_batch_that_does_not_decompress_reads_as_a_placeholder_saying_why(reader, codec):
    name = next(name for name, c in CODECS.items() if c == codec)
    data = bytearray(batch([(b"k", b"v" * 100, [])] * 3, codec))
    data[61:] = b"\x07" * (len(data) - 61)  # the compressed records, overwritten
    consumed = reader(with_crc(data))
    assert [(r.offset, r.key, r.value) for r in consumed] == [(2, None, bytes(data))]
    [(header, reason)] = consumed[0].headers
    assert header == REFUSED_BATCH
    assert reason.startswith(f"{name} batch does not decompress: ".encode())
    assert reason.isascii()


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_batch_naming_an_unknown_codec_reads_as_a_placeholder_saying_so(reader):
    data = bytearray(batch([(b"k", b"v", [])] * 2, ZSTD))
    struct.pack_into(">h", data, 21, struct.unpack_from(">h", data, 21)[0] | 0x07)  # codec 7: none so far
    consumed = reader(with_crc(data))
    assert [(r.offset, r.value, list(r.headers)) for r in consumed] == [
        (1, bytes(data), [(REFUSED_BATCH, b"batch names unknown compression codec 7")])
    ]


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_batch_with_broken_varints_reads_as_a_placeholder_after_the_records_before_them(reader):
    data = bytearray(batch([(b"k0", b"v0", []), (b"k1", b"v1", [(b"\xff", b"x")]), (b"k2", b"v2", [])]))
    data[-1:] = b"\xff"  # the last record's header count becomes a varint that never ends
    consumed = reader(with_crc(data))
    assert [(r.offset, r.key) for r in consumed] == [(0, b"k0"), (2, None)]
    assert consumed[1].value == bytes(data)
    assert consumed[1].headers[0][1].startswith(b"batch does not parse: record 2: ")


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_timestamp_past_64_bits_wraps_as_in_the_libraries_c_and_java_readers(reader):
    builder = DefaultRecordBatchBuilder(2, NONE, 0, -1, -1, -1, batch_size=1 << 20)
    builder.append(0, timestamp=0, key=b"k0", value=None, headers=[])
    builder.append(1, timestamp=2**62 + 5, key=b"k1", value=None, headers=[(Raw(b"\xff"), None)])
    data = bytearray(builder.build())
    struct.pack_into(">q", data, 27, 2**62)  # the first timestamp: the second record's now lies past 2**63
    consumed = reader(with_crc(data))
    assert [(r.offset, r.key) for r in consumed] == [(0, b"k0"), (1, b"k1")]
    assert consumed[1].timestamp == -(2**63) + 5


def test_install_twice_changes_nothing():
    record_batches.install()
    record_batches.install()
    assert aiokafka_fetcher.MemoryRecords is record_batches.AiokafkaRecords
    assert kafka_fetcher.MemoryRecords is record_batches.KafkaRecords
    assert kafka_fetcher.Fetcher.PartitionRecords is record_batches.KafkaPartitionRecords


header = st.tuples(st.binary(max_size=12), st.none() | st.binary(max_size=12))
record = st.tuples(
    st.none() | st.binary(max_size=40), st.none() | st.binary(max_size=40), st.lists(header, max_size=50)
)


@settings(max_examples=300, deadline=None)
@given(
    records=st.lists(record, min_size=1, max_size=12),
    codec=st.sampled_from(list(CODECS.values())),
    reader=st.sampled_from(list(READERS.values())),
)
def test_what_the_readers_return_is_what_was_written(records, codec, reader):
    data = batch(records, codec) + batch(records, codec, base_offset=len(records))
    assert as_written(reader(data)) == expected(records) + expected(records, base_offset=len(records))


damage = st.tuples(st.integers(min_value=0), st.binary(min_size=1, max_size=4))


# Not "aiokafka-python": aiokafka's Python batch reader calls its C varint decoder whenever the C extensions exist, and
# that one reads past the end of damaged bytes (a mix no deployment runs; without the extensions both are Python).
@settings(max_examples=400, deadline=None)
@given(
    codec=st.sampled_from(list(CODECS.values())),
    reader=st.sampled_from([read_aiokafka, read_kafka]),
    spots=st.lists(damage, min_size=1, max_size=4),
)
def test_a_batch_damaged_anywhere_after_its_header_reads_without_an_exception(codec, reader, spots):
    records = [(b"k%d" % i, b"v%d" % i * i, [(b"h", b"x"), (b"\xfe", None)]) for i in range(4)]
    data = bytearray(batch(records, codec))
    for at, patch in spots:
        at = 61 + at % (len(data) - 61)
        data[at : at + len(patch)] = patch[: len(data) - at]
    reader(with_crc(data) + batch(records, codec, base_offset=len(records)))
