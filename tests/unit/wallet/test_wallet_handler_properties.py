"""Property: for any command sequence, the record handler over a partition emits byte for byte what the pure core
emits, holds the player state of the pure fold, and a partition rebuilt from its emitted events (through a snapshot
or from scratch) holds the very same players and memory."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.events import decode, encode, envelope
from shared.events.envelope import epoch_ms

from services.wallet.adapters import snapshot
from services.wallet.adapters.handler import handle
from shared import records

from services.wallet.core import PlayerState, WalletBook, decide, evolve
from test_wallet_properties import apply, steps
from wallet_scenario import PLAYER, Wallet

SPIN_WROTE_IT = records.headers_for("spin")  # the internal commands come from the spin service


class MirroredWallet(Wallet):
    """Sends every command to the pure core and, as the same record bytes, to the handler."""

    def __init__(self) -> None:
        super().__init__()
        self.partition = WalletBook(0)
        self.outputs: list[bytes] = []

    def send(self, data, *, sent_at=None, envelope_id=None):
        command = envelope(data, source="test", time=sent_at or self.now, id=envelope_id or uuid.uuid4())
        events = decide(self.state, command, self.now)
        for event in events:
            evolve(self.book, event, encode(event))
        self.emitted.extend(events)
        outputs = handle(
            self.partition,
            command.key,
            encode(command),
            epoch_ms(self.now),
            ("wallet.commands", 0, len(self.outputs)),
            SPIN_WROTE_IT,
        )
        assert [output.value for output in outputs] == [encode(event) for event in events]
        self.outputs.extend(output.value for output in outputs)
        return events[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, max_size=40), st.integers(0, 40))
def test_the_handler_agrees_with_the_core_and_a_rebuilt_partition_with_the_live_one(tmp_path_factory, sequence, cut):
    wallet = MirroredWallet()
    for step in sequence:
        apply(wallet, step)
    live = wallet.partition
    assert live.players.get(PLAYER, PlayerState(PLAYER)) == wallet.state.player
    cut = min(cut, len(wallet.outputs))
    rebuilt = WalletBook(0)
    for value in wallet.outputs[:cut]:
        evolve(rebuilt, decode(value, expect_kind="event"), value)
    directory = tmp_path_factory.mktemp("snapshots")
    snapshot.write(directory, "wallet.events", rebuilt)
    rebuilt = snapshot.load(directory, "wallet.events", 0)
    for value in wallet.outputs[cut:]:
        evolve(rebuilt, decode(value, expect_kind="event"), value)
    assert rebuilt.players == live.players
    assert rebuilt.memory == live.memory
