"""Property: for any command sequence, the record handler over a partition emits byte for byte what the core decides
(a repeat: the very record of the facts it names, read back from wallet.events when an earlier batch wrote them),
holds the player state of the pure fold, and a partition restored from any snapshot (through the snapshots topic's
encoding) plus the tail of its events, forged records among them, equals a fresh fold from offset 0."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.events import encode, envelope
from shared.events.envelope import epoch_ms

from services.wallet.adapters import snapshot
from services.wallet.adapters.restore import fold_record
from services.wallet.adapters.written import Partition
from shared import records
from shared.topics import WALLET_SNAPSHOTS
from tests.support.snapshot_log import LogRecord, SnapshotLog

from services.wallet.core import PlayerState, WalletBook
from tests.unit.wallet.core.test_wallet_properties import apply, steps
from tests.support.wallet import PLAYER, Wallet
from tests.support.wallet_partition import WalletPartition

SPIN_WROTE_IT = records.headers_for("spin")  # the internal commands come from the spin service


class MirroredWallet(Wallet):
    """Sends every command to the core (tests/support/wallet.py) and, as the same record bytes, to the handler over
    a partition whose batches commit onto its log."""

    def __init__(self) -> None:
        super().__init__()
        self.partition = WalletPartition()
        self.outputs: list[bytes] = []

    def send_all(self, data, *, sent_at=None, envelope_id=None):
        envelope_id = envelope_id or uuid.uuid4()
        events = super().send_all(data, sent_at=sent_at, envelope_id=envelope_id)
        command = envelope(data, source="test", time=sent_at or self.now, id=envelope_id)
        at_ms, offset = epoch_ms(self.now), len(self.outputs)
        outputs = self.partition.run(encode(command), at_ms, offset, command.key, headers=SPIN_WROTE_IT)
        assert [output.value for output in outputs] == [encode(event) for event in events]
        self.outputs.extend(output.value for output in outputs)
        return events


def history_with_forgeries(outputs: list[bytes], forged_at: list[int]) -> list[LogRecord]:
    """wallet.events as a restore reads it: the wallet's events, and records another role wrote in between."""
    values = [(value, records.headers_for("wallet")) for value in outputs]
    for at in sorted(forged_at, reverse=True):
        forged = outputs[at % len(outputs)] if outputs else b"{}"
        values.insert(min(at, len(values)), (forged, records.headers_for("cashier")))
    return [LogRecord(b"k", value, headers, offset) for offset, (value, headers) in enumerate(values)]


def fold(partition: Partition, history: list[LogRecord]) -> list[int]:
    """Fold records into the partition as a restore does; the offsets it quarantined."""
    return [record.offset for record in history if fold_record(partition, record) is not None]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, max_size=40), st.integers(0, 60), st.lists(st.integers(0, 60), max_size=4))
def test_the_handler_agrees_with_the_core_and_a_restore_from_any_snapshot_with_a_fresh_fold(sequence, cut, forged_at):
    wallet, first_sent_at = MirroredWallet(), {}
    for step in sequence:
        apply(wallet, step, first_sent_at)
    live = wallet.partition.book
    assert live.players.get(PLAYER, PlayerState(PLAYER)) == wallet.state.player
    history = history_with_forgeries(wallet.outputs, forged_at)
    fresh = Partition(WalletBook(0))
    fresh_quarantined = fold(fresh, history)
    assert len(fresh_quarantined) == len(forged_at)
    cut = min(cut, len(history))
    before = Partition(WalletBook(0))
    quarantined = fold(before, history[:cut])
    log = SnapshotLog(WALLET_SNAPSHOTS)
    log.write("wallet", 0, snapshot.image(before.book, before.written, tuple(quarantined)), cut, cut)
    [written] = log.read()
    restored = snapshot.load(written)
    quarantined = list(written.quarantined) + fold(restored, history[written.output_next :])
    assert quarantined == fresh_quarantined
    assert restored.book.players == fresh.book.players == live.players
    assert restored.book.memory == fresh.book.memory == live.memory
    assert list(restored.book.fifo) == list(fresh.book.fifo)
    facts = [entry.event_id for _, entry in fresh.book.live_entries()]  # what a repeat may name
    assert [restored.written.repeats.where(f) for f in facts] == [fresh.written.repeats.where(f) for f in facts]
