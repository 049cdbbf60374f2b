"""Snapshots on a topic: a round trip keeps the image and its positions (a large state in several chunks), a read keeps
the newest two valid generations, and a forged, torn or tampered snapshot is never used: the previous one is. With a
key ring, only a snapshot signed by its service's key counts."""

from __future__ import annotations

import os

from shared import records, signing, snapshots
from shared.topics import JACKPOT_SNAPSHOTS, WALLET_SNAPSHOTS
from tests.support.snapshot_log import SnapshotLog


def an_image(n: int, size: int = 100) -> snapshots.Image:
    return snapshots.Image(bytes([n % 256]) * size, 7, (3, 5))


def test_a_snapshot_read_back_holds_its_image_positions_format_and_quarantined_offsets():
    log = SnapshotLog(WALLET_SNAPSHOTS)
    log.write("wallet", 0, an_image(1), input_next=40, output_next=90)
    [snapshot] = log.read()
    assert (snapshot.state, snapshot.format_version, snapshot.quarantined) == (an_image(1).state, 7, (3, 5))
    assert (snapshot.input_next, snapshot.output_next, snapshot.slot) == (40, 90, 0)


def test_a_state_larger_than_a_record_travels_in_chunks_and_comes_back_whole():
    state = os.urandom(3 * snapshots.CHUNK_BYTES)  # incompressible: at least 3 chunks
    log = SnapshotLog(WALLET_SNAPSHOTS)
    log.write("wallet", 1, snapshots.Image(state, 1), input_next=None, output_next=1)
    assert len(log.records) >= 4
    assert all(len(record.value) <= snapshots.CHUNK_BYTES for record in log.records)
    [snapshot] = log.read()
    assert snapshot.state == state and snapshot.input_next is None


def test_a_read_keeps_the_newest_two_generations_newest_first():
    log = SnapshotLog(WALLET_SNAPSHOTS)
    for n in range(5):
        log.write("wallet", n % 2, an_image(n), input_next=n, output_next=10 * n)
    assert [snapshot.output_next for snapshot in log.read()] == [40, 30]
    assert snapshots.next_slot(log.read()[0]) == 1 - log.read()[0].slot
    assert snapshots.next_slot(None) == 0


def test_a_snapshot_another_role_wrote_is_never_used_the_previous_one_is():
    log = SnapshotLog(WALLET_SNAPSHOTS)
    log.write("wallet", 0, an_image(1), input_next=1, output_next=10)
    log.write("cashier", 1, an_image(2), input_next=2, output_next=20)  # forged: not the wallet's writer id
    assert [snapshot.output_next for snapshot in log.read()] == [10]


def test_a_tampered_chunk_or_a_missing_chunk_makes_the_snapshot_unusable_and_the_previous_one_is_used():
    log = SnapshotLog(WALLET_SNAPSHOTS)
    log.write("wallet", 0, an_image(1), input_next=1, output_next=10)
    log.write("wallet", 1, snapshots.Image(os.urandom(2 * snapshots.CHUNK_BYTES), 1), input_next=2, output_next=20)
    chunk = log.records[2]
    chunk.value = bytes([chunk.value[0] ^ 1]) + chunk.value[1:]
    assert [snapshot.output_next for snapshot in log.read()] == [10]
    del log.records[2]
    assert [snapshot.output_next for snapshot in log.read()] == [10]


def test_a_manifest_without_its_chunks_or_one_that_is_not_json_is_refused_and_counted():
    log = SnapshotLog(WALLET_SNAPSHOTS)
    log.write("wallet", 0, an_image(1), input_next=1, output_next=10)
    manifest = log.records[-1]
    log.append(manifest.key, manifest.value, manifest.headers)  # the chunks were consumed by the first manifest
    log.append(b"0/1/manifest", b"not json", records.headers_for("wallet", [(snapshots.SNAPSHOT_ID_HEADER, b"x")]))
    collector = snapshots.Collector(WALLET_SNAPSHOTS, 0)
    for record in log.records:
        collector.add(record)
    assert [snapshot.output_next for snapshot in collector.newest_first()] == [10]
    assert len(collector.refused) == 2


def test_a_snapshot_of_another_partition_is_not_used():
    log = SnapshotLog(WALLET_SNAPSHOTS, partition=2)
    log.write("wallet", 0, an_image(1), input_next=1, output_next=10)
    collector = snapshots.Collector(WALLET_SNAPSHOTS, 3)
    for record in log.records:
        collector.add(record)
    assert collector.newest_first() == []


def test_with_a_key_ring_a_snapshot_counts_only_signed_by_its_services_key(tmp_path, monkeypatch):
    # What main requires of every record on a service's own topic: the writer id and the writer's signature.
    log = SnapshotLog(WALLET_SNAPSHOTS)
    log.write("wallet", 0, an_image(1), input_next=1, output_next=10)  # no key ring yet: unsigned
    signing.generate(tmp_path / "signing")
    monkeypatch.setenv(signing.SIGNING_DIR_ENV, str(tmp_path / "signing"))
    assert log.read() == [], "an unsigned snapshot was used"
    log.write("wallet", 1, an_image(2), input_next=2, output_next=20)
    assert [snapshot.output_next for snapshot in log.read()] == [20]
    assert all(signing.SIGNATURE in dict(record.headers) for record in log.records[-2:])
    # The wallet's writer id, signed with another writer's key: refused, the signed one before it is used.
    cashier = signing.load_signer(tmp_path / "signing", "cashier")
    forged = snapshots.encode("wallet", WALLET_SNAPSHOTS, 0, 0, an_image(3), input_next=3, output_next=30)
    items = [signing.Item(WALLET_SNAPSHOTS, key, value, headers) for key, value, headers in forged]
    for (key, value, _), headers in zip(forged, cashier.sign(items)):
        log.append(key, value, headers)
    assert [snapshot.output_next for snapshot in log.read()] == [20]
    # A signed snapshot of another service's topic is not one of this topic's.
    other = SnapshotLog(JACKPOT_SNAPSHOTS)
    for record in log.records[-4:-2]:
        other.append(record.key, record.value, record.headers)
    assert other.read() == []


def _collected(records, **options) -> snapshots.Collector:
    collector = snapshots.Collector(WALLET_SNAPSHOTS, 0, **options)
    for record in records:
        collector.add(record)
    return collector


def test_a_window_that_starts_inside_a_snapshot_skips_that_edge_but_refuses_a_torn_one_after_it():
    # A restore reads a partition's tail (snapshots.read): its window can start among the chunks of a snapshot, whose
    # manifest then misses chunks — the edge, not a fault. The same gap in a later snapshot of the window is one.
    log = SnapshotLog(WALLET_SNAPSHOTS)
    for n in range(3):
        log.write("wallet", n % 2, snapshots.Image(os.urandom(2 * snapshots.CHUNK_BYTES), 1), n, 10 * n)
    per_snapshot = len(log.records) // 3
    window = log.records[2:]  # from inside the first snapshot
    at_edge = _collected(window, edge=True)
    assert [s.output_next for s in at_edge.newest_first()] == [20, 10] and at_edge.refused == []
    assert len(_collected(window).refused) == 1, "a window from the log start has no edge: the gap is a fault"
    torn = [r for r in window if r is not log.records[per_snapshot + 1]]  # a chunk of the second snapshot lost
    assert [s.output_next for s in _collected(torn, edge=True).newest_first()] == [20]
    assert len(_collected(torn, edge=True).refused) == 1
    assert _collected(window, edge=True).records_read == len(window)
