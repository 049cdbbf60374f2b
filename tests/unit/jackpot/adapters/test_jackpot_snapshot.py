"""The jackpot's snapshot state. Property: over random histories of contributions and claims as the loop writes them
(runs of contributions packed into batch envelopes, records another role wrote among them), a restore from a snapshot
taken at any record plus the fold of the tail equals a fresh fold from offset 0: levels, totals, liabilities, the
de-duplication memory and the kept answers. A snapshot written before the seam plus a packed tail equals the live
state. Must-drop pools come back with their drop point sealed (its opened value is never in a snapshot). A state of
another format version is refused (the restore then tries the previous snapshot)."""

from __future__ import annotations

import base64
from dataclasses import asdict, replace
from pathlib import Path

import orjson

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.jackpot.adapters import snapshot
from services.jackpot.adapters.records import event_record
from services.jackpot.adapters.restore import fold_record
from services.jackpot.core.decide import JackpotCore
from shared import records
from shared.events import broker_time, encode
from shared.events import jackpot as jp
from shared.events.base import packable_types
from shared.events.batch import is_packed
from shared.packing import packed
from shared.pools import load_pools
from shared.topics import JACKPOT_EVENTS, JACKPOT_SNAPSHOTS
from tests.support.snapshot_log import LogRecord, SnapshotLog

from tests.support.jackpot import STJERNE, T0_MS, Network, claim, contribute, incoming
from tests.support.mustdrop import drop_pools, secrets

POOLS = load_pools()
PACKABLE = packable_types(JACKPOT_EVENTS)
PRE_SEAM = orjson.loads((Path(__file__).parents[2] / "pre_issue44_snapshots.json").read_bytes())["jackpot"]
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
    # The records as the loop writes them: runs of contributions packed into batch envelopes, the rest one a record.
    values = [(out.value, out.headers) for out in packed([event_record(e) for e in network.events], PACKABLE)]
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


def test_a_snapshot_written_before_the_seam_plus_a_packed_tail_equals_the_live_state():
    # The image and events the code before the seam wrote (tests/unit/pre_issue44_snapshots.json); after it, the core
    # decides contributions one at a time and the loop packs them: the restore folds them onto the old image.
    old = [
        LogRecord(b"k", base64.b64decode(value), records.headers_for("jackpot"), offset)
        for offset, value in enumerate(PRE_SEAM["events"])
    ]
    log = SnapshotLog(JACKPOT_SNAPSHOTS)
    for written in PRE_SEAM["snapshots"]:
        headers = [(name, base64.b64decode(value)) for name, value in written["headers"]]
        log.append(base64.b64decode(written["key"]), base64.b64decode(written["value"]), headers)
    [image] = log.read()
    restored = snapshot.load(image)
    live: dict = {}
    assert fold(live, old) == []
    core, decided = JackpotCore(POOLS), []
    for n in range(30):
        message = incoming(contribute(STJERNE, stake_minor=50), T0_MS + 60_000 + n)
        decided += core.decide(live, message, broker_time(message.broker_ms)).events
    tail = [
        LogRecord(b"k", out.value, out.headers, len(old) + n)
        for n, out in enumerate(packed([event_record(event) for event in decided], PACKABLE))
    ]
    assert len(tail) == 1 and is_packed(tail[0].value)
    assert fold(restored, tail) == []
    assert view(restored) == view(live)
