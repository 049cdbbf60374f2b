"""The wallet's snapshot state: a round trip through the snapshots topic's encoding keeps players, memory (in FIFO
order), where each remembered fact is (so a repeat after the restore is read back byte for byte), and the operator an
account belongs to; the positions travel in the manifest, not the book. A state of another format version or an
unreadable one is refused with ValueError (the restore then tries the previous snapshot, then offset 0)."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

from shared import records, snapshots
from shared.events import encode, envelope
from shared.operators import OPERATORS
from shared.topics import WALLET_SNAPSHOTS

from services.wallet.adapters import snapshot
from services.wallet.adapters.written import Partition
from tests.support.snapshot_log import SnapshotLog
from services.wallet.adapters.state_codec import player_doc, remembered_doc
from shared.events.wallet import DebitWager
from tests.support.wallet import CORE, PLAYER, T0, sent, tx
from tests.support.wallet_partition import T0_MS, WalletPartition, deposit, record


def debit(n: int, amount_minor: int) -> DebitWager:
    return DebitWager(
        transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency="EUR", game="rising-joker"
    )


def a_partition_with_history() -> WalletPartition:
    partition = WalletPartition(book=CORE.new_state(3))
    for n in range(1, 4):
        partition.run(record(deposit(n, 10)), offset=n)
    return partition


def written(partition: WalletPartition, input_next=17, output_next=42) -> snapshots.Snapshot:
    log = SnapshotLog(WALLET_SNAPSHOTS, partition=partition.book.partition)
    log.write("wallet", 0, snapshot.image(partition.book, partition.written, (5,)), input_next, output_next)
    [read] = log.read()
    return read


def test_a_snapshot_read_back_holds_the_players_the_memory_in_fifo_order_and_where_each_fact_is():
    live = a_partition_with_history()
    read = written(live)
    loaded = snapshot.load(read)
    assert loaded.book.players == live.book.players
    assert loaded.book.liabilities_minor == live.book.liabilities_minor != {}
    assert loaded.book.memory == live.book.memory
    assert list(loaded.book.fifo) == list(live.book.fifo)
    facts = [entry.event_id for _, entry in live.book.live_entries()]
    assert list(loaded.written.repeats.places()) == list(live.written.repeats.places()) == list(zip(facts, range(3)))
    assert (read.output_next, read.input_next, loaded.book.partition) == (42, 17, 3)
    assert read.quarantined == (5,)


def test_a_repeat_after_a_restore_from_a_snapshot_is_the_first_record_read_back():
    live = a_partition_with_history()
    loaded = snapshot.load(written(live))
    restored = WalletPartition(loaded.book, loaded.written, live.log)
    (again,) = restored.run(record(deposit(2, 10), T0_MS + 1_000), at_ms=T0_MS + 1_000, offset=9)
    assert restored.reader.read == 1
    assert (again.key, again.value) == (live.log[1].key, live.log[1].value)


def test_a_fact_of_a_batch_not_yet_committed_is_kept_with_its_bytes_and_answers_a_repeat_from_them():
    # The loop images the book right after deciding a batch, before its transaction commits: the facts of that batch
    # have no offset yet, so the image carries their records.
    live = a_partition_with_history()
    live.written.begin()
    command = envelope(deposit(7, 70), source="test", time=T0)
    (event,) = CORE.decide(live.book, sent(command, T0), T0).events
    live.written.fact(str(event.id), (event.key, encode(event)), T0_MS)
    loaded = snapshot.load(written(live))
    assert dict(loaded.written.repeats.places())[str(event.id)] == (PLAYER.encode(), encode(event))
    assert loaded.book.memory == live.book.memory


def test_a_format_2_snapshot_keeping_bytes_restores_and_names_an_open_wagers_game_from_its_debit():
    # Scenario: the build before the seam kept every remembered fact's bytes (format 2), and a snapshot from before
    # wagers named their game holds an open wager without one; its debit's bytes name it, so its settlement is still
    # bounded by that game's maximum award.
    live = a_partition_with_history()
    live.run(record(debit(9, 10)), offset=4, headers=records.headers_for("spin"))
    player = player_doc(live.book.players[PLAYER])
    player["open"] = {wager: fields[:3] for wager, fields in player["open"].items()}
    by_offset = {index: (out.key, out.value) for index, out in enumerate(live.log)}
    memory = [
        remembered_doc(player_id, entry, by_offset[live.written.repeats.where(entry.event_id)])
        for player_id, entry in live.book.live_entries()
    ]
    state = orjson.dumps({"players": [player], "memory": memory})
    loaded = snapshot.load(replace(written(live), format_version=2, state=state))
    assert loaded.book.players[PLAYER].open_wagers[str(tx(9))].game == "rising-joker"
    assert loaded.book.liabilities_minor == live.book.liabilities_minor  # the game named: no balance counted twice
    assert loaded.book.memory == live.book.memory
    kept = {fact: by_offset[where] for fact, where in live.written.repeats.places()}
    assert dict(loaded.written.repeats.places()) == kept


def test_a_snapshot_without_a_recorded_commands_position_loads_without_one():
    read = written(a_partition_with_history(), input_next=None)
    assert read.input_next is None
    assert snapshot.load(read).book.players  # the restore then resumes at the group's offset


def test_the_operator_an_account_belongs_to_is_kept_in_a_snapshot():
    live = WalletPartition()
    command = envelope(deposit(1, 10), source="test", time=T0)
    live.written.begin()
    for event in CORE.decide(live.book, sent(command, T0, operator=OPERATORS[0]), T0).events:
        live.written.fact(str(event.id), (event.key, encode(event)), T0_MS)
    assert snapshot.load(written(live)).book.state_of(PLAYER).player.operator_id == OPERATORS[0]


def test_a_state_of_another_format_version_or_an_unreadable_one_is_refused():
    good = written(a_partition_with_history())
    with pytest.raises(ValueError, match="format"):
        snapshot.load(replace(good, format_version=snapshot.VERSION + 1))
    with pytest.raises(ValueError, match="unreadable"):
        snapshot.load(replace(good, state=good.state[: len(good.state) // 2]))
    with pytest.raises(ValueError, match="unreadable"):
        snapshot.load(replace(good, state=b'{"players": [{"id": 1}], "memory": []}'))
    assert isinstance(snapshot.load(good), Partition)
