"""The spin's input positions travel on its journal (shared/input_position.py: with_inputs): a SIGKILLed spin service
resumes each of its three inputs where its last committed transaction left it, read back from its snapshot and the
journal facts and answers after it, and a stopped one from its shutdown snapshot's manifest alone (nothing follows
it), not from the consumer group's offsets (committed only for lag tools, here never: `REELSTREAM_GROUP_COMMIT_S` an
hour). Had it resumed at the group's offsets it would decide every request and wallet fact again and write each
answer a second time."""

from __future__ import annotations

import uuid
from collections import Counter

from reelstream.client import Settled
from shared.events import decode
from shared.events.spin import SpinSettled
from shared.input_position import INPUTS_HEADER
from shared.kafka import admin_client

from conftest import client_for, token_for

PLAYERS = [f"positions-{n}" for n in range(2)]  # 6 spins each: their partitions snapshot (every 10 records)
SPINS_BEFORE, SPINS_AFTER, SPINS_LAST = 12, 4, 2


def _spin(client, player: str) -> uuid.UUID:
    request_id = uuid.uuid4()
    answer = client.spin(player, "rising-joker", 100, "EUR", token_for(player), request_id=request_id, timeout_s=30)
    assert isinstance(answer, Settled), answer
    return request_id


def test_a_killed_spin_service_resumes_every_input_where_its_journal_says_and_answers_nothing_twice(platform_factory):
    platform = platform_factory(REELSTREAM_GROUP_COMMIT_S="3600", REELSTREAM_SPIN_SNAPSHOT_RECORDS="10")
    client = client_for(platform)
    try:
        for player in PLAYERS:
            client.deposit(player, 1_000_000, "EUR")
        requested = [_spin(client, PLAYERS[n % len(PLAYERS)]) for n in range(SPINS_BEFORE)]
        group = f"{platform.prefix}reelstream-spin"
        admin = admin_client(platform.bootstrap, client_id="reelstream-positions-test")
        try:
            committed = admin.list_group_offsets({group: None}).get(group, {})
        finally:
            admin.close()
        # Only batches that wrote nothing (the deposits' facts: none of the spin's business) committed offsets.
        assert all(meta.offset <= 1 for meta in committed.values()), committed
        platform.services["spin"].kill()  # SIGKILL: no shutdown snapshot
        platform.start("spin").wait_ready(120)
        requested += [_spin(client, PLAYERS[n % len(PLAYERS)]) for n in range(SPINS_AFTER)]
        platform.services["spin"].stop()  # SIGTERM: a shutdown snapshot, no journal fact after it
        platform.start("spin").wait_ready(120)
        requested += [_spin(client, PLAYERS[n % len(PLAYERS)]) for n in range(SPINS_LAST)]
    finally:
        client.close()
    events = [decode(record.value) for record in platform.read_raw("spin.events")]
    settled = Counter(event.data.request_id for event in events if isinstance(event.data, SpinSettled))
    assert set(settled) == set(requested)
    assert all(count == 1 for count in settled.values()), f"answered again after the restart: {settled}"
    carrying = [r for r in platform.read_raw("spin.journal") if any(h == INPUTS_HEADER for h, _ in r.headers or ())]
    assert carrying, "the journal carries the inputs' positions"
    assert platform.read_raw("spin.snapshots"), "the restart restored from a snapshot and the journal after it"
