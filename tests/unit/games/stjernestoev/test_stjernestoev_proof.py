"""The proof's rules: one pass criterion that every page and test reads, seeds from the frozen model's hash whose
streams no recorded or reconstructed tuning stream touches, and a log in which every model that has proof batches
also has its attempts (so a failed proof cannot vanish) and no interim entry counts as a pass."""

from __future__ import annotations

import json
import re
from pathlib import Path

from games.stjernestoev.model import PROOF_CANDIDATE, RELEASED_VERSIONS, load_model
from mathtools.stjernestoev_batches import ATTEMPTS_FILE, RESULTS_FILE, batch_seed, PROOF_BATCH_SPINS
from mathtools.stjernestoev_proof import (
    HALF_WIDTH_MAX,
    PROOF_RECORD_FILE,
    PROOF_TARGET_BATCHES,
    attempts,
    criterion_text,
    progress_line,
    proof_record_markdown,
    reconstructed_seeds,
    splitmix64_gamma,
    streams_overlap,
    tuning_inputs,
    verdict,
    words_drawn_max,
)

ROOT = Path(__file__).resolve().parents[4]
PAGES_STATING_THE_CRITERION = (
    ROOT / "README.md",
    ROOT / "docs" / "math" / "stjernestoev" / "README.md",
    ROOT / "docs" / "math" / "stjernestoev" / "parsheet.md",
    ROOT / "docs" / "math" / "proof-record.md",
)


def figures(low: float, high: float) -> dict:
    return {"rtp_main_ci99": [low, high], "rtp_main_ci99_half_width": (high - low) / 2}


def test_a_proof_passes_only_with_a_narrow_ci_wholly_inside_93_50_plus_minus_0_05():
    assert verdict(figures(0.93475, 0.93525))["passed"]
    assert not verdict(figures(0.93440, 0.93490))["passed"]  # pokes out below 93.45 %
    assert not verdict(figures(0.93510, 0.93552))["passed"]  # pokes out above 93.55 %
    assert not verdict(figures(0.93460, 0.93540))["passed"]  # inside, but 0.04 pp half-width


def test_the_criterion_reads_in_words_as_the_constants_say():
    assert criterion_text() == "the 99 % CI's half-width ≤ 0.03 pp and the CI wholly inside 93.50 ± 0.05 %"


def test_every_page_that_states_the_criterion_states_the_one_definition_and_no_other_half_width():
    for page in PAGES_STATING_THE_CRITERION:
        text = page.read_text()
        assert criterion_text() in text, page
        widths = {float(w) for w in re.findall(r"half-width ≤ ([0-9.]+) pp", text)}
        assert widths <= {round(HALF_WIDTH_MAX * 100, 2), 0.10}, page
        assert 0.10 not in widths or page.name == "proof-record.md", page  # only the record names the old rule


def test_the_proof_record_page_is_what_the_criterion_seeds_and_log_generate():
    assert PROOF_RECORD_FILE.read_text() == proof_record_markdown(ATTEMPTS_FILE)


def test_every_model_with_proof_batches_has_its_attempts_in_the_log():
    shas = {json.loads(line)["model_sha256"] for line in RESULTS_FILE.read_text().splitlines() if line.strip()}
    logged = {entry["model_sha256"] for entry in attempts(ATTEMPTS_FILE)}
    assert shas <= logged
    assert {load_model(v).sha256 for v in RELEASED_VERSIONS} <= logged


def test_no_interim_entry_counts_as_a_pass_and_every_correction_is_on_the_line_it_corrects():
    log = attempts(ATTEMPTS_FILE)
    assert all(e["passed"] is False for e in log if e["event"] == "interim")
    for entry in log:
        for amendment in entry.get("amendments", []):
            assert set(amendment["added"]) <= set(entry)
            assert all(entry[field] == change["now"] for field, change in amendment.get("changed", {}).items())


def test_every_line_written_after_the_fact_says_so():
    log = attempts(ATTEMPTS_FILE)
    after = [e for e in log if e.get("recorded_after_the_fact")]
    assert {e["model_version"] for e in after} == {"stjernestoev-v1", "stjernestoev-v2"}
    assert all(e["git_commit"] is None and e["amendments"] for e in after)


def test_the_seed_record_names_every_tuning_input_of_v3_as_recorded_reconstructed_or_lost():
    inputs = tuning_inputs()
    assert {e["status"] for e in inputs} == {"recorded", "reconstructed", "lost"}
    tuned_on = json.loads((ROOT / "docs/math/stjernestoev/stjernestoev-v3-tuning.json").read_text())["pooled_spins"]
    assert sum(e["spins"] for e in inputs if e["spins"] is not None) == tuned_on
    assert [e["spins"] for e in inputs if e["status"] == "lost" and e["spins"]] == [240_000_000]


def _recorded_streams(candidate: str) -> list[tuple[int, int]]:
    lines = [json.loads(line) for line in RESULTS_FILE.read_text().splitlines() if line.strip()]
    return [
        (line["seed"], words_drawn_max(line["spins"], line["stats"]["retries"]))
        for line in lines
        if line["model_sha256"] != candidate
    ]


def _reconstructed_streams() -> list[tuple[int, int]]:
    """Retries are not known for these batches; none of the 193 recorded batches has one, so one per spin bounds it."""
    return [
        (seed, words_drawn_max(entry["batch_spins"], entry["batch_spins"]))
        for entry in tuning_inputs()
        if entry["status"] == "reconstructed"
        for seed in reconstructed_seeds(entry)
    ]


def test_the_v3_proof_streams_are_disjoint_from_every_recorded_and_reconstructed_tuning_stream():
    candidate = load_model(PROOF_CANDIDATE).sha256
    gamma = splitmix64_gamma()
    proof = [(batch_seed(candidate, i), words_drawn_max(PROOF_BATCH_SPINS, 0)) for i in range(PROOF_TARGET_BATCHES)]
    earlier = _recorded_streams(candidate) + _reconstructed_streams()
    assert len({seed for seed, _ in proof}) == PROOF_TARGET_BATCHES
    assert len(earlier) >= 93 + 60
    clashes = [(a, b) for a, wa in proof for b, wb in earlier if streams_overlap(a, wa, b, wb, gamma)]
    assert clashes == []


def test_streams_overlap_exactly_when_one_seed_is_a_few_gamma_steps_from_the_other():
    gamma = splitmix64_gamma()
    seed = 12345
    assert streams_overlap(seed, 10, (seed + 5 * gamma) % 2**64, 10, gamma)
    assert streams_overlap((seed + 5 * gamma) % 2**64, 10, seed, 10, gamma)
    assert not streams_overlap(seed, 5, (seed + 5 * gamma) % 2**64, 10, gamma)
    assert not streams_overlap(seed, 10, seed + 1, 10, gamma)


def test_the_progress_line_shows_the_bar_speed_and_the_running_figure():
    line = progress_line(25, 100, 0.0, 0, {"rtp_main": 0.935, "rtp_main_ci99_half_width": 0.0004})
    assert line.startswith("proof [#######-----------------------] 25/100 batches, 250,000,000 spins")
    assert "RTP so far 93.5000 % ± 0.0400 pp" in line
