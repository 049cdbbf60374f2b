"""Partition snapshots: a round trip keeps players, memory and the offset; a snapshot that cannot be trusted
(unreadable, torn, another topic or partition) is ignored, so recovery folds from the start instead of guessing."""

from __future__ import annotations

from services.wallet.adapters import snapshot
from services.wallet.core.book import WalletBook
from test_wallet_handler import deposit, record, run


def a_partition_with_history() -> WalletBook:
    partition = WalletBook(3)
    for n in range(1, 4):
        run(partition, record(deposit(n, 10)), offset=n)
    partition.events_offset = 42
    partition.commands_offset = 17
    return partition


def test_a_snapshot_read_back_holds_the_players_the_memory_in_fifo_order_and_the_offset(tmp_path):
    live = a_partition_with_history()
    snapshot.write(tmp_path, "wallet.events", live)
    loaded = snapshot.load(tmp_path, "wallet.events", 3)
    assert loaded.players == live.players
    assert loaded.memory == live.memory
    assert list(loaded.fifo) == list(live.fifo)
    assert loaded.events_offset == 42
    assert loaded.commands_offset == 17
    assert live.unsnapshotted == 0


def test_a_snapshot_written_before_the_commands_position_was_recorded_loads_without_one(tmp_path):
    import orjson

    snapshot.write(tmp_path, "wallet.events", a_partition_with_history())
    document = orjson.loads(snapshot.path_of(tmp_path, 3).read_bytes())
    del document["commands_offset"]
    snapshot.path_of(tmp_path, 3).write_bytes(orjson.dumps(document))
    loaded = snapshot.load(tmp_path, "wallet.events", 3)
    assert loaded.events_offset == 42
    assert loaded.commands_offset is None


def test_no_snapshot_a_torn_one_or_one_of_another_topic_or_partition_is_not_used(tmp_path):
    assert snapshot.load(tmp_path, "wallet.events", 3) is None
    snapshot.write(tmp_path, "wallet.events", a_partition_with_history())
    assert snapshot.load(tmp_path, "other-prefix-wallet.events", 3) is None
    snapshot.path_of(tmp_path, 3).rename(snapshot.path_of(tmp_path, 4))
    assert snapshot.load(tmp_path, "wallet.events", 4) is None
    raw = snapshot.path_of(tmp_path, 4).read_bytes()
    snapshot.path_of(tmp_path, 3).write_bytes(raw[: len(raw) // 2])
    assert snapshot.load(tmp_path, "wallet.events", 3) is None
