"""The conformance kit end to end, through the real broker and a running platform, with a deliberately naive client.

Scenario: the naive client sends once and prints the first answer. It passes a plain spin; it fails the vector whose
answer only comes after a retry (it never retries), and when it always partitions by CRC32 the kit sees the request on
the wrong partition and the platform's WRONG_PARTITION where a settled spin was due.
"""

from __future__ import annotations

import sys
from pathlib import Path

from reelstream.conformance.vectors import load_vectors
from reelstream.conformance.verify import Platform, local_client_properties, verify
from shared.config import load_settings
from shared.topics import PLAYER_PARTITIONS

NAIVE = [sys.executable, str(Path(__file__).with_name("naive_client.py"))]


def run_kit(platform, tmp_path: Path, command: list[str], names: set[str]) -> dict[str, list[str]]:
    properties = local_client_properties(platform.bootstrap, tmp_path)
    vectors = tuple(v for v in load_vectors() if v.name in names)
    results: dict[str, list[str]] = {}
    target = Platform(platform.bootstrap, platform.prefix, load_settings().session_secret, PLAYER_PARTITIONS)
    failed = verify(command, vectors, target, properties, lambda name, problems: results.__setitem__(name, problems))
    assert failed == sum(bool(p) for p in results.values())
    return results


def test_the_kit_passes_a_plain_spin_and_fails_a_client_that_never_retries_or_partitions_by_crc32(
    platform_factory, tmp_path, monkeypatch
):
    platform = platform_factory()
    naive = run_kit(platform, tmp_path, NAIVE, {"settles-rising-joker", "answer-after-timeout-and-retry"})
    assert naive["settles-rising-joker"] == []
    assert any("exactly one answer line" in p for p in naive["answer-after-timeout-and-retry"])
    monkeypatch.setenv("NAIVE_PARTITIONER", "crc32")
    crc32 = run_kit(platform, tmp_path, NAIVE, {"crc32-partitioner-is-refused"})["crc32-partitioner-is-refused"]
    assert any(p.startswith("step 1: outcome 'rejected' WRONG_PARTITION, expected 'settled'") for p in crc32), crc32
    assert any(p.startswith("step 1: request on partition") and "murmur2 partitioner puts" in p for p in crc32), crc32
