"""The campaign's plan and judgement, without a broker: batches of at most 500, restarts by SIGTERM and SIGKILL in
turn, skipped classes, the bisection down to the record that fails alone (or the records that fail only together),
the probes' book of what money may have moved, and the result's verdict."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from reelstream.chaos.campaign import CampaignPlan, batches, bisect, classes, describe, kept, restart_after
from reelstream.chaos.campaign_book import ProbeBook
from reelstream.chaos.campaign_report import CampaignResult, Finding, ProbeRound, as_json, as_markdown
from reelstream.chaos.fuzz import Hostile
from reelstream.chaos.fuzz_bytes import RawName
from shared.events.jackpot import AppliedContribution, ContributionsApplied, PoolMovement

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=timezone.utc)


def test_batches_cover_every_record_once_and_hold_at_most_the_batch_size():
    spans = batches(1_201, 500)
    assert [len(span) for span in spans] == [500, 500, 201]
    assert [i for span in spans for i in span] == list(range(1_201))


def test_a_plan_refuses_a_batch_above_500():
    with pytest.raises(AssertionError):
        CampaignPlan(seed=1, records=10, batch=501)


def test_every_service_restarts_every_k_batches_by_sigterm_then_sigkill():
    plan = CampaignPlan(seed=1, records=10, restart_every=2)
    assert [restart_after(plan, index) for index in range(8)] == [
        None,
        "SIGTERM",
        None,
        "SIGKILL",
        None,
        "SIGTERM",
        None,
        "SIGKILL",
    ]
    assert restart_after(CampaignPlan(seed=1, records=10, restart_every=0), 3) is None


def _item(shape: str = "mutated/drop", header_shape: str = "default") -> Hostile:
    return Hostile("spin.requests", b"p", b"{}", [("content-type", b"x")], "zstd", None, shape, "player", header_shape)


def test_a_skipped_class_leaves_its_records_out_and_the_rest_in_order():
    items = [_item(), _item(header_shape="name-not-utf8"), _item(shape="deep/request_id")]
    assert "header:name-not-utf8" in classes(items[1])
    assert kept(items, ("header:name-not-utf8", "value:deep")) == [items[0]]
    assert kept(items, ()) == items


def test_bisection_narrows_a_batch_to_the_one_record_that_fails_alone():
    tried = []

    def fails(part):
        tried.append(len(part))
        return ["spin stopped"] if 37 in part else []

    narrowed = bisect(list(range(100)), fails, lambda: True)
    assert narrowed.items == [37]
    assert narrowed.failures == ["spin stopped"]
    assert narrowed.tries == len(tried) <= 14


def test_bisection_narrows_records_that_fail_only_together_to_the_pair():
    narrowed = bisect(list(range(64)), lambda part: ["duplicate id"] if {5, 40} <= set(part) else [], lambda: True)
    assert sorted(narrowed.items) == [5, 40]
    assert narrowed.failures == ["duplicate id"]
    assert narrowed.tries <= 30


def test_bisection_stops_when_its_time_is_up():
    narrowed = bisect(list(range(64)), lambda part: ["x"], lambda: False)
    assert len(narrowed.items) == 64
    assert narrowed.tries == 0


def test_a_described_record_shows_a_name_that_is_not_utf8_as_its_bytes_and_a_long_value_cut():
    item = Hostile("wallet.events", None, b"x" * 5_000, [(RawName(b"\xffw"), b"\xfe")], None, 2, "huge")
    shown = describe(item)
    assert shown["principal"] == "ops"
    assert shown["headers"] == [["b'\\xffw'", "b'\\xfe'"]]
    assert "5,000 bytes" in shown["value"]
    assert shown["key"] == "None"


@dataclass
class Settled:
    stake_minor: int
    win_minor: int
    balance_after_minor: int


def test_the_book_explains_the_probes_money_and_names_what_it_cannot():
    book = ProbeBook()
    assert book.deposited("p-1", "EUR", 200, 200) == []
    request = uuid.uuid4()
    assert book.settled("p-1", "rising-joker", "EUR", request, Settled(10, 30, 220)) == []
    moved = book.settled("p-1", "rising-joker", "EUR", uuid.uuid4(), Settled(10, 0, 999))
    assert moved and "210" in moved[0]
    ledger = {("player:p-1", "EUR"): 210 * 1_000_000, ("player:fz-bystander", "EUR"): 5_000_000, ("house", "EUR"): 1}
    assert book.ledger_problems(ledger) == [
        "player:fz-bystander EUR: the ledger holds 5000000 micro, the probes explain 0"
    ]


def _contributions(*ids: uuid.UUID):
    movement = PoolMovement(pool_id="dm-green", opening_micro=0, contributions_micro=1, closing_micro=1)
    data = ContributionsApplied(
        network_id="diamond-mystery",
        recorded_at=NOW,
        currency="EUR",
        contributions=tuple(
            AppliedContribution(contribution_id=i, game="rising-joker", player_id="p", stake_minor=10, amount_micro=1)
            for i in ids
        ),
        movements=(movement,),
    )
    return SimpleNamespace(data=data, where="jackpot.events[0]@3")


def test_the_book_names_a_contribution_no_probe_spin_made():
    book, probe, foreign = ProbeBook(), uuid.uuid4(), uuid.uuid4()
    book.spin_requests.add(probe)
    assert book.pool_problems([_contributions(probe)]) == []
    assert book.pool_problems([_contributions(probe, foreign)]) == [f"jackpot.events[0]@3: contribution {foreign} of p"]


def _result(**changes) -> CampaignResult:
    result = CampaignResult(plan={"seed": 40, "batch": 300, "skip": ()}, started_at="t", records_at="t", hypothesis="h")
    result.audit = {"completed": True, "money_discrepancies": []}
    for name, value in changes.items():
        setattr(result, name, value)
    return result


def test_a_campaign_passes_only_with_the_audit_done_and_no_finding():
    assert _result().passed
    assert not _result(audit={"completed": False}).passed
    stopped = ProbeRound(0, None, {"spin": 0.1}, [Finding("spin", "stopped", "exited with 1: RecursionError")])
    failed = _result(rounds=[stopped])
    assert not failed.passed
    assert [str(stop) for stop in failed.stops] == ["spin stopped: exited with 1: RecursionError"]
    assert not Finding("money", "moved", "x").stop


def test_the_result_reads_back_as_json_and_the_page_names_the_bisected_record():
    from collections import Counter

    bisected = {
        "batch": 0,
        "records_in_batch": 300,
        "records": [describe(_item(header_shape="name-not-utf8"))],
        "failures": ["spin stopped: UnicodeDecodeError"],
        "tries": 9,
        "duration_s": 300.0,
    }
    result = _result(written=Counter({"spin.requests": 300}), bisected=bisected)
    result.audit["dead_letters"] = {"on_topics": {"a.dlq": 3, "b.dlq": 2}, "monitor": {"a.dlq": 3, "b.dlq": 1}}
    document = json.loads(as_json(result))
    assert document["written"] == {"spin.requests": 300}
    assert document["consumer_stops"] == 0
    page = as_markdown(result)
    assert "name-not-utf8" in page
    assert "a.dlq 3, b.dlq 2 (1 to the monitor)" in page


def test_the_long_runs_page_is_rendered_from_its_result_file():
    """docs/results/security/fuzz-long.md is what its .json gives, and the .json reads back to itself."""
    from pathlib import Path

    from reelstream.chaos.campaign_report import as_json, as_markdown, from_json

    folder = Path(__file__).resolve().parents[4] / "docs" / "results" / "security"
    text = (folder / "fuzz-long.json").read_text()
    result = from_json(text)
    assert as_json(result) == text
    assert as_markdown(result) == (folder / "fuzz-long.md").read_text()
    assert result.passed and result.drawn >= 20_000 and len(result.restarts) >= 2 and not result.stops
