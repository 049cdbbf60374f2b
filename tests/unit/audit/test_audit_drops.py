"""The audit's must-drop checks: every reveal matches its cycle's published commitment; a changed drop value, a
changed salt, a reveal without a commitment, a second reveal of one cycle and a changed commitment are each named."""

from __future__ import annotations


import uuid

from services.audit.core.collect import Fact
from services.audit.core.drops import check_drops
from shared.events import jackpot as jp
from tests.support.mustdrop import drop_pools, secrets
from tests.support.jackpot import Network, contribute


POOLS = drop_pools()
DIAMOND = POOLS.network("diamond-mystery")


def _history() -> list[Fact]:
    net = Network(DIAMOND, secrets())
    net.send(*[contribute(DIAMOND, stake_minor=2000) for _ in range(60)])
    return [
        Fact("jackpot.events", f"jackpot.events[0]@{offset}", int(e.data.recorded_at.timestamp() * 1000), e, 0, offset)
        for offset, e in enumerate(net.events)
    ]


def _replace(facts: list[Fact], index: int, **changes) -> list[Fact]:
    fact = facts[index]
    forged = fact.envelope.model_copy(update={"data": fact.data.model_copy(update=changes), "id": uuid.uuid4()})
    return facts[:index] + [Fact(fact.topic, fact.where, fact.timestamp_ms, forged)] + facts[index + 1 :]


def _first(facts: list[Fact], kind: type) -> int:
    return next(i for i, f in enumerate(facts) if isinstance(f.data, kind))


def test_a_clean_must_drop_history_has_no_drop_findings():
    facts = _history()
    assert sum(isinstance(f.data, jp.DropRevealed) for f in facts) >= 2
    assert check_drops(facts, POOLS) == []


def test_a_tampered_drop_value_or_salt_is_flagged():
    facts = _history()
    index = _first(facts, jp.DropRevealed)
    reveal = facts[index].data
    seed_minor = POOLS.network(reveal.network_id).pool(reveal.pool_id).seed_minor
    for changes in ({"drop_value": reveal.drop_value - 1}, {"salt": "00" * 32}):
        found = check_drops(_replace(facts, index, **changes), POOLS)
        # dm-drop's 50 possible drop points: one reveal in 50 is at seed + 1, and one less is then also out of range
        out_of_range = reveal.kind == "must-drop-by-amount" and changes.get("drop_value") == seed_minor
        assert [f.check for f in found] == ["drop-reveal-mismatch"] * (2 if out_of_range else 1)
        assert "not the published commitment" in found[0].detail
        assert out_of_range == any("outside (seed, ceiling]" in f.detail for f in found)


def test_a_reveal_without_commitment_a_second_reveal_and_a_changed_commitment_are_flagged():
    facts = _history()
    reveal_index, commit_index = _first(facts, jp.DropRevealed), _first(facts, jp.DropPointCommitted)
    uncommitted = _replace(facts, reveal_index, cycle=99)
    assert [f.check for f in check_drops(uncommitted, POOLS)] == ["drop-reveal-uncommitted"]
    twice = facts + [_replace(facts, reveal_index)[reveal_index]]
    assert [f.check for f in check_drops(twice, POOLS)] == ["drop-revealed-twice"]
    changed = facts + [_replace(facts, commit_index, commitment="ab" * 32)[commit_index]]
    assert [f.check for f in check_drops(changed, POOLS)] == ["drop-commitment-changed"]
