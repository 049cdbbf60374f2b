"""Records → facts: only what a topic's owner wrote is read; an undecodable or forged record is counted, not applied."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, timezone

from bench.synthetic.samples import sample_events
from services.monitor.adapters import records
from shared import records as provenance
from services.jackpot.adapters.records import event_record
from services.monitor.core.plan import MonitorFold, plan_jackpot_events
from shared.events import encode
from shared.events.base import packable_types
from shared.events.batch import is_packed
from shared.packing import packed
from shared.topics import JACKPOT_EVENTS
from tests.support.jackpot import Network, contribute


@dataclass
class _Record:
    value: bytes | None
    headers: list
    partition: int = 0
    offset: int = 0
    timestamp: int = 1_764_000_000_000
    key: bytes | None = None


SETTLED = next(
    s.envelope for s in sample_events(5, datetime.now(timezone.utc)) if s.envelope.type == "reelstream.spin.settled.v1"
)


def test_a_settled_spin_written_by_the_spin_service_becomes_a_fact_on_the_par_basis():
    (fact,) = records.spin_facts([_Record(encode(SETTLED), provenance.headers_for("spin"))])
    data = SETTLED.data
    assert fact.return_micro == data.house_win_minor * 1_000_000 + data.breakage_micro + data.contribution_micro
    assert (fact.at.broker_ms, fact.at.event_id) == (1_764_000_000_000, str(SETTLED.id))


def test_a_forged_or_broken_record_is_counted_and_skipped():
    before = sum(records.skipped.values())
    forged = _Record(encode(SETTLED), provenance.headers_for("someone-else"), offset=1)
    unsigned = _Record(encode(SETTLED), [], offset=2)
    broken = _Record(b'{"type": "reelstream.spin.settled.v1"}', provenance.headers_for("spin"), offset=3)
    assert records.spin_facts([forged, unsigned, broken]) == []
    assert sum(records.skipped.values()) == before + 3


def test_the_items_of_a_packed_jackpot_record_are_each_booked_once_in_order():
    # Contributions the loop packed into one record: each item's movement continues where the one before it closed
    # (no drift), the pools end at the live levels, and the record read again changes nothing.
    network = Network()
    network.send(*[contribute(stake_minor=100) for _ in range(5)])
    outputs = packed([event_record(event) for event in network.events], packable_types(JACKPOT_EVENTS))
    written = [_Record(out.value, out.headers, offset=n) for n, out in enumerate(outputs)]
    assert sum(is_packed(record.value) for record in written) == 1
    fold = MonitorFold()
    planned = fold.apply(plan_jackpot_events(*records.jackpot_facts(written)))
    assert planned.drifts == []
    assert fold.tables["pools"]["dm-green"]["closing_micro"] == network.level_micro("dm-green")
    before = copy.deepcopy(fold.tables)
    fold.apply(plan_jackpot_events(*records.jackpot_facts(written[-1:])))
    assert fold.tables == before
