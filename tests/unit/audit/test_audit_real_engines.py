"""With the released engines (not the stand-in), a synthetic history re-derives every spin with no finding, and a
Stjernestøv board edited in the record is caught."""

from __future__ import annotations

import pytest

from services.audit.core.audit import run_audit
from services.audit.core.rederive import default_lookup
from bench.synthetic.spins import Emitted, play_history
from shared.events import envelope
from shared.events import spin as sp

registry = pytest.importorskip("games.registry")


@pytest.fixture(scope="module")
def platform():
    try:
        versions = {game: registry.engine(game).model_version for game in registry.GAMES}
    except Exception as error:  # noqa: BLE001 - an engine still being written
        pytest.skip(f"engines not available: {error}")
    return play_history(seed=21, players=2, spins_per_player=12, lookup=default_lookup, model_versions=versions)


def test_every_spin_of_the_released_engines_rederives_exactly(platform):
    result = run_audit(platform.records())
    assert result.discrepancies == []
    assert result.spins.rederived == 24


def test_an_edited_stjernestoev_board_is_caught(platform):
    index, item = next(
        (i, e)
        for i, e in enumerate(platform.emitted)
        if isinstance(e.envelope.data, sp.SpinSettled) and e.envelope.data.game == "stjernestoev"
    )
    outcome = dict(item.envelope.data.outcome)
    board = list(outcome["initial_board"])
    board[0], board[-1] = board[-1], ("red" if board[0] != "red" else "blue")
    outcome["initial_board"] = board
    data = item.envelope.data.model_copy(update={"outcome": outcome})
    emitted = list(platform.emitted)
    emitted[index] = Emitted(
        item.topic,
        envelope(data, source=item.envelope.source, time=item.envelope.time, id=item.envelope.id),
        item.timestamp_ms,
    )
    platform_records = type(platform)(platform.rng, platform.lookup, emitted=emitted).records()
    findings = run_audit(platform_records).discrepancies
    assert {f.check for f in findings} == {"spin-rederivation-mismatch"}
    assert "outcome.initial_board" in findings[0].detail
