"""Spins are pinned to the exact rules: the audit re-derives a spin only with an engine whose model file and engine
code hash to what spin.settled recorded, and flags (without re-deriving) a spin whose pins differ or are missing.

Scenario: two players spin 12 times each on the released engines; each test edits one settled spin's pins the way a
forger (or a deploy of other code) would and reads the audit's findings.
"""

from __future__ import annotations

import pytest

from games import engine_code_sha256, registry
from services.audit.core.audit import run_audit
from services.audit.core.rederive import default_lookup
from reelstream.synthetic.spins import Emitted, play_history
from shared.events import envelope
from shared.events import spin as sp


@pytest.fixture(scope="module")
def platform():
    versions = {game: registry.engine(game).model_version for game in registry.GAMES}
    return play_history(seed=23, players=2, spins_per_player=12, lookup=default_lookup, model_versions=versions)


def settled_spins(platform) -> list[int]:
    return [i for i, item in enumerate(platform.emitted) if isinstance(item.envelope.data, sp.SpinSettled)]


def with_pins(platform, index: int, **pins) -> list:
    emitted = list(platform.emitted)
    item = emitted[index]
    data = item.envelope.data.model_copy(update=pins)
    emitted[index] = Emitted(
        item.topic,
        envelope(data, source=item.envelope.source, time=item.envelope.time, id=item.envelope.id),
        item.timestamp_ms,
    )
    return emitted


def audit_of(platform, emitted):
    platform.emitted = emitted
    return run_audit(platform.records())


def test_every_settled_spin_carries_the_model_and_engine_code_hashes_of_its_engine(platform):
    for index in settled_spins(platform):
        data = platform.emitted[index].envelope.data
        engine = registry.engine_for_model(data.game, data.model_version)
        assert (data.model_sha256, data.engine_code_sha256) == (engine.model_sha256, engine_code_sha256())
    assert run_audit(platform.records()).discrepancies == []


@pytest.mark.parametrize("field", ["model_sha256", "engine_code_sha256"])
def test_a_spin_with_a_tampered_hash_is_flagged_and_not_rederived(platform, field):
    index = settled_spins(platform)[3]
    original = list(platform.emitted)
    try:
        result = audit_of(platform, with_pins(platform, index, **{field: "0" * 64}))
    finally:
        platform.emitted = original
    found = [d for d in result.discrepancies if d.check == "spin-pin-mismatch"]
    assert len(found) == 1 and field in found[0].detail
    assert result.spins.rederived == 23


def test_a_spin_of_a_pinned_model_without_its_pins_is_flagged(platform):
    index = settled_spins(platform)[0]
    original = list(platform.emitted)
    try:
        result = audit_of(platform, with_pins(platform, index, model_sha256=None, engine_code_sha256=None))
    finally:
        platform.emitted = original
    details = [d.detail for d in result.discrepancies if d.check == "spin-pin-mismatch"]
    assert len(details) == 2
    assert any("model_sha256 missing" in d for d in details) and any("engine_code_sha256 missing" in d for d in details)
