"""Kafka's default key partitioner, exactly as the Java client computes it (`toPositive(murmur2(key)) % n`): every
player-keyed record sits on that partition, whatever partitioner its producer used."""

from __future__ import annotations

_SEED = 0x9747B28C
_M = 0x5BD1E995
_MASK32 = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Java's `Utils.murmur2`: a signed 32-bit hash (the sign is Java's; `partition_for` masks it off)."""
    length = len(data)
    h = (_SEED ^ length) & _MASK32
    whole = length - length % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * _M) & _MASK32
        k ^= k >> 24
        k = (k * _M) & _MASK32
        h = ((h * _M) & _MASK32) ^ k
    tail = data[whole:]
    if len(tail) >= 3:
        h ^= tail[2] << 16
    if len(tail) >= 2:
        h ^= tail[1] << 8
    if tail:
        h ^= tail[0]
        h = (h * _M) & _MASK32
    h ^= h >> 13
    h = (h * _M) & _MASK32
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def partition_for(key: bytes, partitions: int) -> int:
    """The partition Kafka's default partitioner (Java, kafka-python, kafkajs, franz-go's sticky-key) picks for key."""
    assert partitions > 0, "a topic has at least one partition"
    return (murmur2(key) & 0x7FFFFFFF) % partitions


def misplaced(key: bytes, partition: int, partitions: int) -> str | None:
    """What is wrong when a keyed record is not on its key's murmur2 partition, or None when it is."""
    expected = partition_for(key, partitions)
    if partition == expected:
        return None
    return (
        f"the record is on partition {partition} but its key hashes to partition {expected} of {partitions} "
        "under Kafka's murmur2 partitioner: configure the producer with the murmur2 partitioner (Java and kafkajs "
        "default; librdkafka partitioner=murmur2_random; franz-go StickyKeyPartitioner(nil); .NET "
        "Partitioner.Murmur2Random) and send the request again"
    )
