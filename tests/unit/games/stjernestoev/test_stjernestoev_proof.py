"""The proof's rules: a fixed band and half-width, seeds from the frozen model's hash that no tuning run used, and a
log in which every model that has proof batches also has its attempts (so a failed proof cannot vanish)."""

from __future__ import annotations

import json

from games.stjernestoev.model import PROOF_CANDIDATE, RELEASED_VERSIONS, load_model
from reelstream.mathcli.stjernestoev import ATTEMPTS_FILE, RESULTS_FILE, batch_seed
from reelstream.mathcli.stjernestoev_proof import PROOF_TARGET_BATCHES, progress_line, verdict


def figures(low: float, high: float) -> dict:
    return {"rtp_main_ci99": [low, high], "rtp_main_ci99_half_width": (high - low) / 2}


def test_a_proof_passes_only_with_a_narrow_ci_wholly_inside_93_50_plus_minus_0_05():
    assert verdict(figures(0.93475, 0.93525))["passed"]
    assert not verdict(figures(0.93440, 0.93490))["passed"]  # pokes out below 93.45 %
    assert not verdict(figures(0.93510, 0.93552))["passed"]  # pokes out above 93.55 %
    assert not verdict(figures(0.93460, 0.93540))["passed"]  # inside, but 0.04 pp half-width


def test_every_model_with_proof_batches_has_its_attempts_in_the_log():
    shas = {json.loads(line)["model_sha256"] for line in RESULTS_FILE.read_text().splitlines() if line.strip()}
    logged = {json.loads(line)["model_sha256"] for line in ATTEMPTS_FILE.read_text().splitlines() if line.strip()}
    assert shas <= logged
    assert {load_model(v).sha256 for v in RELEASED_VERSIONS} <= logged


def test_the_candidates_proof_seeds_are_new_and_fixed_in_number_before_it_starts():
    candidate = load_model(PROOF_CANDIDATE).sha256
    earlier = (
        {
            json.loads(line)["seed"]
            for line in RESULTS_FILE.read_text().splitlines()
            if line.strip() and json.loads(line)["model_sha256"] != candidate
        }
        | set(range(1000, 1020))
        | set(range(2000, 2040))
    )
    proof = {batch_seed(candidate, i) for i in range(PROOF_TARGET_BATCHES)}
    assert len(proof) == PROOF_TARGET_BATCHES and not proof & earlier


def test_the_progress_line_shows_the_bar_speed_and_the_running_figure():
    line = progress_line(25, 100, 0.0, 0, {"rtp_main": 0.935, "rtp_main_ci99_half_width": 0.0004})
    assert line.startswith("proof [#######-----------------------] 25/100 batches, 250,000,000 spins")
    assert "RTP so far 93.5000 % ± 0.0400 pp" in line
