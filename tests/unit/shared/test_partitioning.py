"""The murmur2 partitioner against the Java client's own test vectors and kafka-python's implementation."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from kafka.partitioner.default import murmur2 as kafka_python_murmur2

from shared.partitioning import misplaced, murmur2, partition_for

# org.apache.kafka.common.utils.UtilsTest.testMurmur2 (signed Java ints) and librdkafka's rdmurmur2.c cases.
JAVA_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
    b"": 275646681,
}
VECTORS_FILE = Path(__file__).resolve().parents[3] / "docs" / "contract" / "conformance" / "partitioning.json"


@pytest.mark.parametrize("data,expected", sorted(JAVA_VECTORS.items()))
def test_murmur2_equals_the_java_clients_vectors(data, expected):
    assert murmur2(data) == expected


def test_murmur2_equals_kafka_pythons_on_every_tail_length_and_random_bytes():
    rng = random.Random(20)
    for length in range(0, 70):
        data = bytes(rng.randrange(256) for _ in range(length))
        assert murmur2(data) & 0xFFFFFFFF == kafka_python_murmur2(data)


def test_partition_for_masks_the_sign_off_before_the_modulo():
    assert murmur2(b"foobar") < 0
    assert partition_for(b"foobar", 50) == (-790332482 & 0x7FFFFFFF) % 50 == 16


def test_a_record_on_its_keys_partition_is_not_misplaced_and_any_other_partition_is():
    home = partition_for(b"p-1", 6)
    assert misplaced(b"p-1", home, 6) is None
    for other in set(range(6)) - {home}:
        problem = misplaced(b"p-1", other, 6)
        assert problem is not None and f"hashes to partition {home} of 6" in problem and "murmur2" in problem


def test_the_published_partitioning_vectors_agree_with_the_partitioner():
    vectors = json.loads(VECTORS_FILE.read_text())
    assert len(vectors["keys"]) >= 8
    for case in vectors["keys"]:
        assert partition_for(case["key"].encode(), vectors["partitions"]) == case["murmur2"]
