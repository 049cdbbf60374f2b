"""The wallet's snapshot state: a round trip through the snapshots topic's encoding keeps players, memory (in FIFO
order) and the positions of the manifest; a state of another format version or an unreadable one is refused with
ValueError (the restore then tries the previous snapshot, then offset 0)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.wallet.adapters import snapshot
from services.wallet.core.book import WalletBook
from shared import snapshots
from shared.topics import WALLET_SNAPSHOTS
from test_wallet_handler import deposit, record, run
from tests.support.snapshot_log import SnapshotLog


def a_partition_with_history() -> WalletBook:
    partition = WalletBook(3)
    for n in range(1, 4):
        run(partition, record(deposit(n, 10)), offset=n)
    return partition


def written(book: WalletBook, input_next=17, output_next=42) -> snapshots.Snapshot:
    log = SnapshotLog(WALLET_SNAPSHOTS, partition=book.partition)
    log.write("wallet", 0, snapshot.image(book, (5,)), input_next, output_next)
    [read] = log.read()
    return read


def test_a_snapshot_read_back_holds_the_players_the_memory_in_fifo_order_and_the_positions():
    live = a_partition_with_history()
    loaded = snapshot.load(written(live))
    assert loaded.players == live.players
    assert loaded.memory == live.memory
    assert list(loaded.fifo) == list(live.fifo)
    assert (loaded.events_offset, loaded.commands_offset, loaded.partition) == (42, 17, 3)
    assert written(live).quarantined == (5,)


def test_a_snapshot_without_a_recorded_commands_position_loads_without_one():
    assert snapshot.load(written(a_partition_with_history(), input_next=None)).commands_offset is None


def test_a_state_of_another_format_version_or_an_unreadable_one_is_refused():
    good = written(a_partition_with_history())
    with pytest.raises(ValueError, match="format"):
        snapshot.load(replace(good, format_version=snapshot.VERSION + 1))
    with pytest.raises(ValueError, match="unreadable"):
        snapshot.load(replace(good, state=good.state[: len(good.state) // 2]))
    with pytest.raises(ValueError, match="unreadable"):
        snapshot.load(replace(good, state=b'{"players": [{"id": 1}], "memory": []}'))
