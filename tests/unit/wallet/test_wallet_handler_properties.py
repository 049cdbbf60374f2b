"""Property: for any command sequence, the record handler over a key-value table emits byte for byte what the pure
core emits, and the player state it stores equals the pure fold (the store layout and pruning change nothing)."""
from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.events import encode, envelope
from shared.events.envelope import epoch_ms

from services.wallet.adapters.handler import handle
from services.wallet.adapters.store import WalletStore
from services.wallet.core import decide, evolve
from test_wallet_properties import apply, steps
from wallet_scenario import PLAYER, Wallet


class MirroredWallet(Wallet):
    """Sends every command to the pure core and, as the same record bytes, to the handler."""

    def __init__(self) -> None:
        super().__init__()
        self.table: dict[bytes, bytes] = {}
        self.offset = 0

    def send(self, data, *, sent_at=None, envelope_id=None):
        command = envelope(data, source="test", time=sent_at or self.now, id=envelope_id or uuid.uuid4())
        events = decide(self.state, command, self.now)
        for event in events:
            self.state = evolve(self.state, event)
        self.emitted.extend(events)
        self.offset += 1
        now_ms = epoch_ms(self.now)
        outputs = handle(self.table, command.key, encode(command), now_ms, ("wallet.commands", 0, self.offset), now_ms)
        assert [output.value for output in outputs] == [encode(event) for event in events]
        return events[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, max_size=40))
def test_the_handler_and_the_pure_core_agree_on_every_event_and_on_the_stored_state(sequence):
    wallet = MirroredWallet()
    for step in sequence:
        apply(wallet, step)
    stored, _ = WalletStore(wallet.table).load(PLAYER)
    assert stored == wallet.state.player
