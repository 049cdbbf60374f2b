"""The audit's progress keeps moving: decoding reports every few hundred records, re-derivation every ten spins, and
the first use of each engine (seconds of loading and compiling) is a phase of its own that ends when its first play
does."""

from __future__ import annotations

from bench.synthetic.spins import play_history, stand_in_lookup
from services.audit.adapters.runner import counting
from services.audit.core.audit import run_audit


def test_decoding_and_rederivation_report_as_they_go():
    history = play_history(seed=5, players=2, spins_per_player=20)
    heard: list[tuple[str, int, int | None]] = []
    progress = lambda phase, done, total: heard.append((phase, done, total))  # noqa: E731
    records = history.records()
    result = run_audit(
        records,
        lookup=counting(stand_in_lookup, "re-deriving spins", 40, progress),
        decoded=lambda count: progress("decoding", count, len(records)),
    )
    assert result.spins.rederived == 40
    decoding = [done for phase, done, _ in heard if phase == "decoding"]
    assert decoding[0] == 0 and len(decoding) >= 1 and decoding == sorted(decoding)
    spins = [done for phase, done, _ in heard if phase == "re-deriving spins"]
    assert spins == [10, 20, 30, 40]
    loading = [(phase, done) for phase, done, _ in heard if phase.startswith("loading ")]
    games = {phase for phase, _ in loading}
    assert len(games) == 2  # one per model version
    for game in games:
        assert [done for phase, done in loading if phase == game] == [0, 1]
