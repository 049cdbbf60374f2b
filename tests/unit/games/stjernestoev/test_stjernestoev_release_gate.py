"""The release gate: the model the service plays has a passed proof in the committed attempt log, under its hash."""

from __future__ import annotations

import json
from pathlib import Path

from games.stjernestoev.model import CURRENT_VERSION, load_model

ATTEMPTS = Path(__file__).resolve().parents[4] / "docs" / "math" / "stjernestoev" / "proof-attempts.jsonl"


def _results_for(sha256: str) -> list[dict]:
    entries = [json.loads(line) for line in ATTEMPTS.read_text().splitlines() if line.strip()]
    return [e for e in entries if e["event"] == "result" and e["model_sha256"] == sha256]


def test_the_current_model_has_a_passed_proof_under_its_own_hash():
    results = _results_for(load_model(CURRENT_VERSION).sha256)
    assert [r["passed"] for r in results] == [True]


def test_the_current_models_proof_meets_the_bar_it_claims():
    (result,) = _results_for(load_model(CURRENT_VERSION).sha256)
    low, high = result["rtp_main_ci99"]
    assert result["spins"] >= 1_000_000_000
    assert result["rtp_main_ci99_half_width"] <= 0.0003
    assert 0.9345 <= low <= high <= 0.9355
