"""The projection comparison: a projection equal to the fold has no findings; an edited, missing or extra row is
named; rows of events the projector has not reached yet are lag, not faults."""

from __future__ import annotations

import copy

import pytest

from services.audit.core.audit import run_audit
from services.audit.core.projection import Snapshot, compare_projection, expected_rows
from bench.synthetic.spins import play_history, stand_in_lookup


@pytest.fixture(scope="module")
def audited():
    platform = play_history(seed=3, players=2, spins_per_player=10)
    records = platform.records()
    result = run_audit(records, lookup=stand_in_lookup)
    ends: dict = {}
    for record in records:
        ends[(record.topic, record.partition)] = record.offset + 1
    return result, ends


def faithful_snapshot(result, ends) -> Snapshot:
    expected = expected_rows(result)
    tables = {name: [dict(row) for row in rows.values()] for name, rows in expected.tables.items()}
    sources = {fact.id: (fact.topic, fact.partition, fact.offset) for fact in result.facts.facts}
    return Snapshot(tables, dict(ends), sources)


def test_a_projection_equal_to_the_fold_has_no_findings(audited):
    result, ends = audited
    assert compare_projection(result, faithful_snapshot(result, ends), ends) == []


def test_an_edited_spin_row_is_named_with_its_column(audited):
    result, ends = audited
    snapshot = faithful_snapshot(result, ends)
    snapshot.tables["spins"][0]["win_minor"] += 100
    findings = compare_projection(result, snapshot, ends)
    assert [f.check for f in findings] == ["projection-row-differs"]
    assert findings[0].subject.startswith("spins ") and "win_minor" in findings[0].detail


def test_a_missing_and_an_extra_posting_row_are_named(audited):
    result, ends = audited
    snapshot = faithful_snapshot(result, ends)
    removed = snapshot.tables["ledger_postings"].pop(0)
    extra = copy.deepcopy(snapshot.tables["jackpot_wins"][0])
    extra["event_id"] = "00000000-0000-0000-0000-000000000001"
    snapshot.tables["jackpot_wins"].append(extra)
    checks = sorted(f.check for f in compare_projection(result, snapshot, ends))
    # the aggregate account_balances row still counts the removed posting: only the row itself is missing
    assert checks == ["projection-row-extra", "projection-row-missing"]
    assert removed


def test_an_edited_balance_is_caught_only_when_the_projector_stands_where_the_audit_stopped(audited):
    result, ends = audited
    snapshot = faithful_snapshot(result, ends)
    snapshot.tables["account_balances"][0]["balance_micro"] += 1
    assert [f.check for f in compare_projection(result, snapshot, ends)] == ["projection-row-differs"]
    behind = Snapshot(snapshot.tables, {**snapshot.positions, ("wallet.events", 0): 3}, snapshot.event_sources)
    assert compare_projection(result, behind, ends) == []  # lagging: neither its rows nor its aggregates are judged


def test_rows_of_events_the_projector_has_not_reached_are_not_missing(audited):
    result, ends = audited
    snapshot = faithful_snapshot(result, ends)
    snapshot.tables["spins"] = snapshot.tables["spins"][:-1]
    positions = {**snapshot.positions, ("spin.events", 0): ends[("spin.events", 0)] - 1}
    assert compare_projection(result, Snapshot(snapshot.tables, positions, snapshot.event_sources), ends) == []
