"""The release gate: the model the service plays has a passed proof in the committed attempt log, under its hash,
and that proof meets the one criterion (mathtools/stjernestoev_proof.py) over the batches fixed for it."""

from __future__ import annotations

from games.stjernestoev.model import CURRENT_VERSION, load_model
from mathtools.stjernestoev_batches import ATTEMPTS_FILE, PROOF_BATCH_SPINS
from mathtools.stjernestoev_proof import PROOF_TARGET_BATCHES, attempts, verdict


def _results_for(sha256: str) -> list[dict]:
    return [e for e in attempts(ATTEMPTS_FILE) if e["event"] == "result" and e["model_sha256"] == sha256]


def test_the_current_model_has_a_passed_proof_under_its_own_hash():
    results = _results_for(load_model(CURRENT_VERSION).sha256)
    assert [r["passed"] for r in results] == [True]


def test_the_current_models_proof_meets_the_one_criterion_over_the_batches_fixed_in_advance():
    (result,) = _results_for(load_model(CURRENT_VERSION).sha256)
    assert result["batches"] == result["target_batches"] == PROOF_TARGET_BATCHES
    assert result["spins"] == PROOF_TARGET_BATCHES * PROOF_BATCH_SPINS
    assert verdict(result)["passed"]
