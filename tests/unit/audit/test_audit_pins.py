"""Spins are pinned to the exact rules: the audit re-derives a spin only with an engine whose model file and outcome
manifest hash to what spin.settled recorded, and flags (without re-deriving) a spin whose pins differ or are missing; a
spin pinned before the manifest (the hash of every games/ source) is equal when a tree of the project's history with
that engine code had today's manifest (games/released-engines.json).

Scenario: two players spin 12 times each on the released engines; each test edits one settled spin's pins the way a
forger (or a deploy of other code) would and reads the audit's findings.
"""

from __future__ import annotations

import pytest

from games import manifest, registry
from services.audit.core.audit import run_audit
from services.audit.core.rederive import default_lookup
from bench.synthetic.spins import Emitted, play_history
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


def test_every_settled_spin_carries_the_model_and_outcome_manifest_hashes_of_its_engine(platform):
    for index in settled_spins(platform):
        data = platform.emitted[index].envelope.data
        engine = registry.engine_for_model(data.game, data.model_version)
        expected = (engine.model_sha256, manifest.outcome_manifest_sha256(data.game, data.model_version))
        assert (data.model_sha256, data.outcome_manifest_sha256) == expected
        assert data.engine_code_sha256 is None, "the old, wider hash is no longer written"
    assert run_audit(platform.records()).discrepancies == []


@pytest.mark.parametrize("field", ["model_sha256", "outcome_manifest_sha256"])
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
        result = audit_of(platform, with_pins(platform, index, model_sha256=None, outcome_manifest_sha256=None))
    finally:
        platform.emitted = original
    details = [d.detail for d in result.discrepancies if d.check == "spin-pin-mismatch"]
    assert len(details) == 2
    assert any("model_sha256 missing" in d for d in details)
    assert any("outcome_manifest_sha256 missing" in d for d in details)


def _pinned_before_the_manifest(platform, engine_code) -> list:
    """The history as code before the manifest recorded it: every settled spin names an engine code hash
    (`engine_code(model_version)`) and no manifest."""
    emitted = list(platform.emitted)
    for index in settled_spins(platform):
        platform.emitted = emitted
        version = emitted[index].envelope.data.model_version
        emitted = with_pins(platform, index, outcome_manifest_sha256=None, engine_code_sha256=engine_code(version))
    return emitted


@pytest.fixture(scope="module")
def before_the_manifest():
    """Spins of the model versions current when spins were pinned by engine code hash."""
    versions = {"rising-joker": "rising-joker-v2", "stjernestoev": "stjernestoev-v3"}
    return play_history(seed=29, players=2, spins_per_player=12, lookup=default_lookup, model_versions=versions)


def test_a_history_recorded_before_the_manifest_audits_clean_and_unknown_rules_are_flagged(before_the_manifest):
    """Every engine code hash of the history (games/released-engines.json) is released code: the spins it pinned are
    re-derived by the code here, clean while it gives the same outcomes; a hash or manifest never released is
    flagged and not re-derived."""
    platform = before_the_manifest
    before = "65d3a7442eb6f80935a9325720d306ea7f616024ca83d067abf584f4a7fdc94c"  # games/ as of d5344d6
    oldest = {}
    for version, code in manifest.released():  # each version's rows oldest first
        oldest.setdefault(version, code)
    original = list(platform.emitted)
    try:
        for engine_code in (lambda version: before, oldest.__getitem__):
            platform.emitted = original
            clean = audit_of(platform, _pinned_before_the_manifest(platform, engine_code))
            assert clean.discrepancies == [] and clean.spins.rederived == 24
        platform.emitted = original
        unknown = audit_of(platform, _pinned_before_the_manifest(platform, lambda version: "1" * 64))
        details = [d.detail for d in unknown.discrepancies if d.check == "spin-pin-mismatch"]
        assert len(details) == 24 and all("no tree" in d for d in details) and unknown.spins.rederived == 0
        platform.emitted = original
        forged = audit_of(platform, with_pins(platform, settled_spins(platform)[5], outcome_manifest_sha256="2" * 64))
        details = [d.detail for d in forged.discrepancies if d.check == "spin-pin-mismatch"]
        assert len(details) == 1 and "no released manifest" in details[0]
    finally:
        platform.emitted = original
