"""One tolerant reading of fetched record batches for aiokafka and kafka-python, installed once by shared/kafka.py: a
header name that is not UTF-8 stops no consumer, and no compressed batch inflates past MAX_INFLATED_BYTES.
"""

from __future__ import annotations

import logging
import operator
import struct
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import aiokafka.consumer.fetcher as aiokafka_fetcher
import aiokafka.record.default_records as aiokafka_batches
import aiokafka.record.memory_records as aiokafka_memory
import cramjam
import kafka.consumer.fetcher as kafka_fetcher
import kafka.record.default_records as kafka_batches
import kafka.record.memory_records as kafka_memory
import lz4.frame
import zstandard

from shared.headers import REFUSED_BATCH

try:
    from aiokafka.record._crecords import default_records as aiokafka_cython_batches
except ImportError:  # an aiokafka built without its C extensions reads every batch with its Python module
    aiokafka_cython_batches = None

MAX_INFLATED_BYTES = 16 * 1024 * 1024
"""Most bytes one compressed batch may inflate to; past it the batch is refused whole. Our producers write uncompressed
batches of at most 512 KiB, and the broker takes batches of at most 1 MiB (2 MiB on dead-letter topics;
max.message.bytes), so no honest batch comes near it. A consumer reads one batch of a partition at a time, so its
worst case is its fetched partitions × this bound (and one bound more while a batch inflates)."""

log = logging.getLogger(__name__)

_BATCH_HEADER = struct.Struct(">qiibIhiqqqhii")  # Kafka v2: base offset ... records count, 61 bytes
# base offset, attributes, last offset delta, first timestamp, max timestamp, records count
_HEADER_FIELDS = operator.itemgetter(0, 5, 6, 7, 8, 12)
_LOG_OVERHEAD, _CODEC_MASK, _LOG_APPEND_TIME = 12, 0x07, 0x08  # base offset and length; attribute bits
_XERIAL_HEADER = b"\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00\x01"  # snappy-java's framing, version 1, compat 1


class BatchRefused(Exception):
    """A fetched batch that is read as one placeholder record; the message is the reason the placeholder carries."""


class _PastBound(Exception):
    """A codec's output grew past MAX_INFLATED_BYTES."""


def _gunzip(data: bytes) -> bytes:
    out = bytearray()
    while True:  # members follow each other, with zero padding allowed between them (as gzip.GzipFile reads them)
        member = zlib.decompressobj(wbits=31)
        while not member.eof:
            chunk = member.decompress(data, MAX_INFLATED_BYTES + 1 - len(out))
            out += chunk
            if len(out) > MAX_INFLATED_BYTES:
                raise _PastBound
            data = member.unconsumed_tail
            if not chunk and not data:
                raise ValueError("the gzip stream ends inside a member")
        data = member.unused_data.lstrip(b"\0")
        if not data:
            return bytes(out)


def _unsnappy(data: bytes) -> bytes:
    if len(data) <= len(_XERIAL_HEADER) or not data.startswith(_XERIAL_HEADER):
        return _snappy_block(data, 0)
    out, pos = bytearray(), len(_XERIAL_HEADER)
    while pos < len(data):
        (size,) = struct.unpack_from(">i", data, pos)
        end = pos + 4 + size
        if size < 0 or end > len(data):
            raise ValueError(f"a snappy block of {size} bytes at {pos} runs past the batch")
        out += _snappy_block(data[pos + 4 : end], len(out))
        pos = end
    return bytes(out)


def _snappy_block(block: bytes, inflated: int) -> bytes:
    # A block declares its length up front and the decoder allocates that much: check it before, and the result after.
    declared, shift = 0, 0
    for byte in block[:5]:
        declared |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    if inflated + declared > MAX_INFLATED_BYTES:
        raise _PastBound
    out = bytes(cramjam.snappy.decompress_raw(block))
    if inflated + len(out) > MAX_INFLATED_BYTES:
        raise _PastBound
    return out


def _unlz4(data: bytes) -> bytes:
    out = bytearray()
    while True:
        frame = lz4.frame.LZ4FrameDecompressor()
        while not frame.eof:
            chunk = frame.decompress(data, max_length=MAX_INFLATED_BYTES + 1 - len(out))
            out += chunk
            if len(out) > MAX_INFLATED_BYTES:
                raise _PastBound
            data = b""  # the decompressor keeps what it has not read yet
            if not chunk and frame.needs_input:
                raise ValueError("the lz4 frame ends early")
        data = frame.unused_data
        if not data:
            return bytes(out)


def _unzstd(data: bytes) -> bytes:
    # A frame's declared content size is never used; its window (the decoder's buffer) may not exceed the bound.
    reader = zstandard.ZstdDecompressor(max_window_size=MAX_INFLATED_BYTES).stream_reader(data, read_across_frames=True)
    out = bytearray()
    while chunk := reader.read(MAX_INFLATED_BYTES + 1 - len(out)):
        out += chunk
        if len(out) > MAX_INFLATED_BYTES:
            raise _PastBound
    return bytes(out)


def _bounded(codec: str, inflate: Callable[[bytes], bytes]) -> Callable[[Any], bytes]:
    """A library's `<codec>_decode(payload)`, bounded: BatchRefused past the bound, or when the bytes do not inflate."""

    def decode(payload: Any) -> bytes:
        try:
            return inflate(bytes(payload))
        except _PastBound:
            raise BatchRefused(f"{codec} batch inflates past {MAX_INFLATED_BYTES} bytes") from None
        except Exception as error:  # noqa: BLE001 - hostile bytes; each codec has its own error types, all refuse
            raise BatchRefused(f"{codec} batch does not decompress: {error}") from None

    return decode


_CODECS = {1: ("gzip", _gunzip), 2: ("snappy", _unsnappy), 3: ("lz4", _unlz4), 4: ("zstd", _unzstd)}  # attribute bits
_DECODER_BY_CODEC = {codec: _bounded(name, inflate) for codec, (name, inflate) in _CODECS.items()}
# The names both libraries' batch modules call their decompressors by.
_DECODERS = {f"{name}_decode": _DECODER_BY_CODEC[codec] for codec, (name, _) in _CODECS.items()}

# A record as the parser reads it: (offset, timestamp, timestamp type, key, value, headers, size in bytes).
Fields = tuple[int, int, int, bytes | None, bytes | None, list[tuple[str, bytes | None]], int]


def read_batch(raw: bytes | memoryview) -> list[Fields]:
    """Every record of a v2 batch as written, a header name that is not UTF-8 decoded with surrogateescape (its
    `encode("utf-8", "surrogateescape")` gives the bytes back); BatchRefused when the batch cannot be read."""
    if len(raw) < _BATCH_HEADER.size:
        raise BatchRefused(f"batch of {len(raw)} bytes is shorter than its header")
    base_offset, attributes, _, first_timestamp, max_timestamp, count = _HEADER_FIELDS(_BATCH_HEADER.unpack_from(raw))
    body = _body(raw, attributes & _CODEC_MASK)
    log_append = attributes & _LOG_APPEND_TIME
    records, pos = [], 0
    try:
        for _ in range(count):
            (length, timestamp_delta, offset_delta, key, value, headers), pos = _read_record(body, pos)
            timestamp = max_timestamp if log_append else _int64(first_timestamp + timestamp_delta)
            offset = _int64(base_offset + offset_delta)
            records.append((offset, timestamp, int(bool(log_append)), key, value, headers, length))
    except ValueError as error:
        raise BatchRefused(f"batch does not parse: record {len(records)}: {error}") from None
    if pos != len(body):
        raise BatchRefused(f"batch does not parse: {len(body) - pos} bytes after its {count} records")
    return records


def _body(raw: bytes | memoryview, codec: int) -> bytes:
    records = bytes(raw[_BATCH_HEADER.size :])
    if codec == 0:
        return records
    if codec not in _DECODER_BY_CODEC:
        raise BatchRefused(f"batch names unknown compression codec {codec}")
    return _DECODER_BY_CODEC[codec](records)


def _read_record(body: bytes, pos: int) -> tuple[tuple[Any, ...], int]:
    length, pos = _varint(body, pos)
    start = pos
    _attributes, pos = _varint(body, pos)
    timestamp_delta, pos = _varint(body, pos)
    offset_delta, pos = _varint(body, pos)
    key, pos = _bytes(body, pos)
    value, pos = _bytes(body, pos)
    count, pos = _varint(body, pos)
    if count < 0:
        raise ValueError(f"{count} headers")
    headers = []
    for _ in range(count):
        name, pos = _bytes(body, pos)
        if name is None:
            raise ValueError("a header without a name")
        header_value, pos = _bytes(body, pos)
        headers.append((name.decode("utf-8", "surrogateescape"), header_value))
    if pos - start != length:
        raise ValueError(f"the record says {length} bytes but holds {pos - start}")
    return (length, timestamp_delta, offset_delta, key, value, headers), pos


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """A zigzag varint (Kafka's varint and varlong) at `pos`, and the position after it."""
    value = shift = 0
    while shift < 70:
        if pos >= len(data):
            raise ValueError("a varint runs past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            value &= 0xFFFF_FFFF_FFFF_FFFF  # a 10th byte's high bits fall off, as in Kafka's 64-bit readVarlong
            return (value >> 1) ^ -(value & 1), pos
        shift += 7
    raise ValueError("a varint longer than 10 bytes")


def _int64(value: int) -> int:
    """`value` wrapped to 64 bits, as the libraries' C and Java readers compute offsets and timestamps."""
    return (value + 2**63) % 2**64 - 2**63


def _bytes(data: bytes, pos: int) -> tuple[bytes | None, int]:
    size, pos = _varint(data, pos)
    if size < 0:
        return None, pos
    if pos + size > len(data):
        raise ValueError(f"{size} bytes at {pos} run past the end")
    return data[pos : pos + size], pos + size


def placeholder(raw: bytes | memoryview, reason: str) -> Fields:
    """The one record a refused batch reads as: at the batch's last offset, key None, the batch's bytes as fetched as
    its value, and a REFUSED_BATCH header saying why."""
    base_offset, attributes, last_offset_delta, _, max_timestamp, _ = _HEADER_FIELDS(_BATCH_HEADER.unpack_from(raw))
    why = reason.encode("ascii", "backslashreplace")[:200]
    timestamp_type = int(bool(attributes & _LOG_APPEND_TIME))
    return (
        base_offset + last_offset_delta,
        max_timestamp,
        timestamp_type,
        None,
        bytes(raw),
        [(REFUSED_BATCH, why)],
        len(raw),
    )


class _Batch:
    """The library's own v2 batch, read by its parser until that raises; the rest of the batch then by `read_batch`.

    What the fetchers ask of a batch besides its records is the library batch's answer, copied here once: a lookup that
    falls through to __getattr__ costs an AttributeError, several times a batch.
    """

    __slots__ = (
        "_native",
        "_records",
        "validate_crc",
        "base_offset",
        "next_offset",
        "producer_id",
        "is_control_batch",
        "is_transactional",
    )

    def __init__(self, native: Any, records: _Records) -> None:
        self._native, self._records = native, records
        self.validate_crc = native.validate_crc
        self.base_offset, self.next_offset = native.base_offset, native.next_offset
        self.producer_id = native.producer_id
        self.is_control_batch, self.is_transactional = native.is_control_batch, native.is_transactional

    def __getattr__(self, name: str) -> Any:
        return getattr(self._native, name)

    def __next__(self) -> Any:  # the fetchers read a control batch's one marker with next()
        return next(self._native)

    def __iter__(self) -> Iterator[Any]:
        read = 0
        try:
            for record in self._native:
                yield record
                read += 1
        except Exception as error:  # noqa: BLE001 - whatever the library's parser raises, ours reads the rest
            yield from self._rest(read, error)

    def _rest(self, read: int, error: Exception) -> list[Any]:
        self._records.fell_back = True
        log.warning("batch at offset %d: the library's reader raised %r; ours reads the rest", self.base_offset, error)
        raw = self._records.raw(self.base_offset)
        if isinstance(error, BatchRefused):
            rest = [placeholder(raw, str(error))]
        else:
            try:
                rest = read_batch(raw)[read:]
            except BatchRefused as refused:
                rest = [placeholder(raw, str(refused))]
        return [self._records.record(*fields) for fields in rest]


class _KafkaBatch(_Batch):
    """A kafka-python batch: its fetcher asks these as well."""

    __slots__ = ("magic", "leader_epoch", "last_offset", "has_producer_id")

    def __init__(self, native: Any, records: _Records) -> None:
        super().__init__(native, records)
        self.magic, self.leader_epoch, self.last_offset = native.magic, native.leader_epoch, native.last_offset
        self.has_producer_id = native.has_producer_id


class _Records:
    """A library's MemoryRecords as its fetcher reads them: the library's own batches, each v2 one behind a _Batch."""

    native: Callable[[bytes], Any]  # the library's MemoryRecords
    v2: tuple[type, ...]  # its v2 batch types
    batch: type[_Batch]
    record: Callable[..., Any]  # builds its record from a `Fields`

    __slots__ = ("_data", "_native", "has_next", "size_in_bytes", "fell_back")

    def __init__(self, data: bytes) -> None:
        self._data, self._native = data, self.native(data)
        self.has_next, self.size_in_bytes = self._native.has_next, self._native.size_in_bytes
        self.fell_back = False  # whether our parser read a batch of these bytes

    def __getattr__(self, name: str) -> Any:
        return getattr(self._native, name)

    def next_batch(self) -> Any:
        batch = self._native.next_batch()
        return self.batch(batch, self) if type(batch) in self.v2 else batch

    def raw(self, base_offset: int) -> memoryview:
        """The bytes of the batch at `base_offset`, as fetched (found only for a batch our parser reads)."""
        view, pos = memoryview(self._data), 0
        while pos + _LOG_OVERHEAD <= len(view):
            offset, length = struct.unpack_from(">qi", view, pos)
            if offset == base_offset:
                return view[pos : pos + _LOG_OVERHEAD + length]
            pos += _LOG_OVERHEAD + length
        raise AssertionError(f"no batch at offset {base_offset} in the bytes its batch was read from")


def _aiokafka_record(offset, timestamp, timestamp_type, key, value, headers, size):
    return aiokafka_batches.DefaultRecord(offset, timestamp, timestamp_type, key, value, headers)


class _EscapedHeaderName(str):
    """A header name that is not UTF-8 while kafka-python's fetcher holds it: its fetcher sizes every header name with
    `name.encode("utf-8")`, so this one encodes back to its bytes; the records it hands out carry plain str again."""

    __slots__ = ()

    def encode(self, encoding: str = "utf-8", errors: str = "surrogateescape") -> bytes:
        return str.encode(self, encoding, errors)


def _kafka_record(offset, timestamp, timestamp_type, key, value, headers, size):
    names = [(name if name.isascii() or _utf8(name) else _EscapedHeaderName(name), v) for name, v in headers]
    return kafka_batches.DefaultRecord(size, offset, timestamp, timestamp_type, key, value, names)


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class AiokafkaRecords(_Records):
    """The MemoryRecords of aiokafka's fetcher, once installed."""

    native = aiokafka_memory.MemoryRecords
    v2 = (aiokafka_batches.DefaultRecordBatch, aiokafka_batches._DefaultRecordBatchPy)
    batch = _Batch
    record = staticmethod(_aiokafka_record)


class KafkaRecords(_Records):
    """The MemoryRecords of kafka-python's fetcher, once installed."""

    native = kafka_memory.MemoryRecords
    v2 = (kafka_batches.DefaultRecordBatch,)
    batch = _KafkaBatch
    record = staticmethod(_kafka_record)


class KafkaPartitionRecords(kafka_fetcher.Fetcher.PartitionRecords):
    """kafka-python's PartitionRecords, handing out header names as plain str once our parser read a batch."""

    def __init__(self, fetch_offset: int, tp: Any, records: Any, **options: Any) -> None:
        super().__init__(fetch_offset, tp, records, **options)
        self._memory = records

    def take(self, n: int | None = None) -> list[Any]:
        taken = super().take(n)
        if getattr(self._memory, "fell_back", False):
            return [record._replace(headers=[(str(k), v) for k, v in record.headers]) for record in taken]
        return taken


def install() -> None:
    """Put the tolerant batches and the bounded codecs into both libraries' fetch paths; calling it again changes
    nothing."""
    aiokafka_fetcher.MemoryRecords = AiokafkaRecords
    kafka_fetcher.MemoryRecords = KafkaRecords
    kafka_fetcher.Fetcher.PartitionRecords = KafkaPartitionRecords
    # The batch classes call these module globals (a Cython module's too: it looks its globals up when it runs).
    for module in (aiokafka_batches, aiokafka_cython_batches, kafka_batches):
        if module is not None:
            for name, decode in _DECODERS.items():
                setattr(module, name, decode)
