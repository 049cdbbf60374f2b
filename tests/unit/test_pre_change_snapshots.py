"""Upgrading a running platform: snapshots written by the code before the seam's redesign (issue 44, written at 84a317d
by `python -m tests.support.pre_change_snapshots`, kept in pre_issue44_snapshots.json) restore in this build, and the
state they hold plus the fold of the facts after them equals a fold of all the facts from the beginning.

Scenario: for each money service, the snapshots topic's records as that code wrote them are read back by this build's
one-pass snapshot read, loaded, and compared with a fresh fold of the facts the same history wrote."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson

from services.jackpot.adapters import snapshot as jackpot_snapshot
from services.spin.adapters import image
from services.wallet.adapters import snapshot as wallet_snapshot
from services.wallet.core.book import WalletBook
from shared import records
from shared.topics import JACKPOT_SNAPSHOTS, WALLET_SNAPSHOTS
from tests.support.snapshot_log import LogRecord, SnapshotLog
from tests.support.spin import Seeds, make_context
from tests.unit.jackpot.adapters.test_jackpot_snapshot import fold as jackpot_fold
from tests.unit.jackpot.adapters.test_jackpot_snapshot import view as jackpot_view
from tests.unit.spin.adapters.test_book_image import folded, normalized
from services.wallet.adapters.restore import fold_record
from services.wallet.adapters.written import Partition
from tests.support.wallet import PLAYER
from tests.support.wallet_partition import T0_MS, WalletPartition, deposit
from tests.support.wallet_partition import record as command_record

WRITTEN = orjson.loads((Path(__file__).parent / "pre_issue44_snapshots.json").read_bytes())


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _read(logical_topic: str, partition: int, written: list[dict]):
    log = SnapshotLog(logical_topic, partition=partition)
    for record in written:
        headers = [(name, _bytes(value)) for name, value in record["headers"]]
        log.append(_bytes(record["key"]), _bytes(record["value"]), headers)
    [snapshot] = log.read()
    return snapshot


def test_a_wallet_snapshot_of_the_previous_build_restores_the_book_its_events_fold_to_and_answers_repeats():
    written = WRITTEN["wallet"]
    events = [_bytes(value) for value in written["events"]]
    snapshot = _read(WALLET_SNAPSHOTS, 3, written["snapshots"])
    loaded = wallet_snapshot.load(snapshot)
    fresh = Partition(WalletBook(3))
    for offset, value in enumerate(events):
        assert fold_record(fresh, LogRecord(PLAYER.encode(), value, records.headers_for("wallet"), offset)) is None
    assert events and loaded.book.players == fresh.book.players and loaded.book.players
    assert loaded.book.memory == fresh.book.memory
    assert list(loaded.book.fifo) == list(fresh.book.fifo)
    assert (loaded.book.partition, snapshot.output_next, snapshot.input_next) == (3, len(events), 17)
    assert snapshot.quarantined == (5,)
    assert isinstance(loaded.book, WalletBook)
    # That build kept each remembered fact's bytes: a repeat after the upgrade is answered with them, read nowhere.
    restored = WalletPartition(loaded.book, loaded.written)
    (again,) = restored.run(command_record(deposit(2, 20), T0_MS + 1_000), at_ms=T0_MS + 1_000, offset=18)
    assert again.value == events[1] and restored.reader.read == 0


def test_a_jackpot_snapshot_of_the_previous_build_restores_the_networks_their_events_fold_to():
    written = WRITTEN["jackpot"]
    history = [
        LogRecord(b"k", _bytes(value), records.headers_for("jackpot"), offset)
        for offset, value in enumerate(written["events"])
    ]
    restored = jackpot_snapshot.load(_read(JACKPOT_SNAPSHOTS, 0, written["snapshots"]))
    fresh: dict = {}
    assert jackpot_fold(fresh, history) == []
    assert restored and jackpot_view(restored) == jackpot_view(fresh)


def test_a_spin_image_of_the_previous_build_plus_the_facts_after_it_equals_a_fold_from_the_beginning():
    written = WRITTEN["spin"]
    facts = {topic: [_bytes(value) for value in values] for topic, values in written["facts"].items()}
    ctx = make_context(Seeds())
    restored = folded(facts, ctx, image.decode(_bytes(written["image"])), written["positions"])
    fresh = folded(facts, ctx)
    assert sum(written["positions"].values()) > 0 and facts["events"]
    assert normalized(restored, ctx) == normalized(fresh, ctx)
