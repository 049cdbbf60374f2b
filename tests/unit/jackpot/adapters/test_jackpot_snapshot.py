"""The jackpot's snapshot state. Property: over random histories of contributions and claims (with records another
role wrote among the events), a restore from a snapshot taken at any point plus the fold of the tail equals a fresh
fold from offset 0: levels, totals, liabilities, the de-duplication memory and the kept answers. Must-drop pools come
back with their drop point sealed (its opened value is never in a snapshot). A state of another format version is
refused (the restore then tries the previous snapshot)."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.jackpot.adapters import snapshot
from services.jackpot.adapters.restore import fold_record
from shared import records
from shared.events import encode
from shared.events import jackpot as jp
from shared.pools import load_pools
from shared.topics import JACKPOT_SNAPSHOTS
from tests.support.snapshot_log import LogRecord, SnapshotLog

from tests.support.jackpot import STJERNE, Network, claim, contribute
from tests.support.mustdrop import drop_pools, secrets

POOLS = load_pools()
TIERS = [pool.tier for pool in STJERNE.pools]


def view(states) -> dict:
    return {
        network_id: {**asdict(state), "answers": {key: encode(value) for key, value in state.answers.items()}}
        for network_id, state in states.items()
    }


def fold(states: dict, history: list[LogRecord]) -> list[int]:
    return [record.offset for record in history if fold_record(states, record, POOLS) is not None]


commands = st.lists(
    st.one_of(
        st.tuples(st.just("contribute"), st.integers(1, 5000)),
        st.tuples(st.just("claim"), st.sampled_from(TIERS)),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands, st.integers(0, 60), st.lists(st.integers(0, 60), max_size=4))
def test_a_restore_from_any_snapshot_plus_the_tail_equals_a_fresh_fold(sequence, cut, forged_at):
    network = Network(STJERNE)
    for kind, value in sequence:
        network.send(
            contribute(STJERNE, stake_minor=value)
            if kind == "contribute"
            else claim(STJERNE, tier=value, stake_minor=50)
        )
    values = [(encode(event), records.headers_for("jackpot")) for event in network.events]
    for at in sorted(forged_at, reverse=True):
        values.insert(
            min(at, len(values)), (values[at % len(values)][0] if values else b"{}", records.headers_for("ops"))
        )
    history = [LogRecord(b"k", value, headers, offset) for offset, (value, headers) in enumerate(values)]
    fresh: dict = {}
    fresh_quarantined = fold(fresh, history)
    cut = min(cut, len(history))
    before: dict = {}
    quarantined = fold(before, history[:cut])
    log = SnapshotLog(JACKPOT_SNAPSHOTS)
    log.write("jackpot", 0, snapshot.image(before, tuple(quarantined)), input_next=cut, output_next=cut)
    [written] = log.read()
    restored = snapshot.load(written)
    assert list(written.quarantined) + fold(restored, history[written.output_next :]) == fresh_quarantined
    assert view(restored) == view(fresh)


def test_a_state_of_another_format_version_is_refused():
    network = Network(STJERNE)
    network.send(contribute(STJERNE, stake_minor=50), claim(STJERNE, tier=TIERS[0], stake_minor=50))
    log = SnapshotLog(JACKPOT_SNAPSHOTS)
    log.write("jackpot", 0, snapshot.image({STJERNE.network_id: network.state}), input_next=2, output_next=3)
    [written] = log.read()
    assert view(snapshot.load(written)) == view({STJERNE.network_id: network.state})
    with pytest.raises(ValueError, match="format"):
        snapshot.load(replace(written, format_version=snapshot.VERSION + 1))
    with pytest.raises(ValueError, match="unreadable"):
        snapshot.load(replace(written, state=b"[{}]"))


def test_must_drop_pools_restore_from_a_snapshot_with_their_drop_point_still_sealed():
    # A must-drop history: cycles committed, dropped and recommitted. The drop point's opened value (decide's cache)
    # is in the live state but never in a snapshot, which auditors and ops can read; the restore equals a fresh fold.
    pools = drop_pools()
    diamond = pools.network("diamond-mystery")
    network = Network(diamond, secrets())

    def opened() -> list[int]:
        return [pool.drop.value for pool in network.state.pools.values() if pool.drop and pool.drop.value is not None]

    for _ in range(500):  # until a pool has dropped and the current cycle's point has been opened by a contribution
        if network.of_type(jp.DropRevealed) and opened():
            break
        network.send(contribute(diamond, stake_minor=2000))
    assert network.of_type(jp.DropRevealed) and opened(), "no drop, or no drop point opened"
    live, opened_values = {diamond.network_id: network.state}, opened()
    history = [
        LogRecord(b"k", encode(event), records.headers_for("jackpot"), offset)
        for offset, event in enumerate(network.events)
    ]
    fresh: dict = {}
    assert [r.offset for r in history if fold_record(fresh, r, pools) is not None] == []
    for cut in (len(history) // 3, len(history)):
        before: dict = {}
        for record in history[:cut]:
            fold_record(before, record, pools)
        log = SnapshotLog(JACKPOT_SNAPSHOTS)
        log.write("jackpot", 0, snapshot.image(before if cut < len(history) else live), input_next=cut, output_next=cut)
        [written] = log.read()
        assert all(f'"value":{value}'.encode() not in written.state for value in opened_values)
        restored = snapshot.load(written)
        for record in history[cut:]:
            fold_record(restored, record, pools)
        assert view(restored) == view(fresh)
