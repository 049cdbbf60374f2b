"""The hot-pool bench's backlog and drop check, without a broker: the packed records hold every spin once, in the
order the fold reads, as each spin partition's transactions in turn; the jackpot core applying them in-process drops
only where the per-spin fold says, and a drop moved by one spin is not counted exact."""

from __future__ import annotations

import os
import time

from bench import hotpool
from shared.decision import Message, Packed
from shared.events import broker_time, decode_all
from shared.events import jackpot as jp

from services.jackpot.core.commitment import DropSecrets
from services.jackpot.core.decide import JackpotCore


def _applied(pools, values):
    core = JackpotCore(pools, DropSecrets(os.urandom(32), os.urandom))
    states: dict = {}
    now_ms = int(time.time() * 1000)
    events = []
    for value in values:
        message = Message(Packed(decode_all(value, expect_kind="command")), now_ms)
        decision = core.decide(states, message, broker_time(now_ms))
        assert not decision.dead_letters
        events.extend(event.data for event in decision.events)
    return events


def test_the_backlog_holds_each_spin_once_as_the_partitions_transactions_in_turn():
    network = hotpool.bench_pools().network("diamond-mystery")
    values, order = hotpool.backlog(network, 1000, 6, seed=3)
    assert hotpool.spins_per_record(6) == 833 and hotpool.spins_per_record(60) == 83
    items = [item.data.contribution_id for value in values for item in decode_all(value)]
    assert items == [spin.contribution_id for spin in order]
    assert len(set(items)) == 1000 and len(values) == 6  # 1,000 spins over six partitions: one transaction each


def test_every_drop_of_the_core_falls_where_the_per_spin_fold_says():
    pools = hotpool.bench_pools()
    network = pools.network("diamond-mystery")
    values, order = hotpool.backlog(network, 1500, 60, seed=5)
    events = _applied(pools, values)
    checked = hotpool.checked_drops(network, order, events)
    assert checked["drops"] >= 20
    assert checked["drops_exact"] == checked["drops"]
    wins = [e for e in events if isinstance(e, jp.JackpotWon)]
    first = next(i for i, spin in enumerate(order) if spin.contribution_id == wins[0].request_id)
    moved = order[:first] + order[first + 1 :]  # the fold never sees the first winner
    assert hotpool.checked_drops(network, moved, events)["drops_exact"] < checked["drops"]
