"""What the Stjernestøv par sheet states beyond the proof: the displayed RTP, the forfeit's value, and the position
on awards rarer than 1 in 10^8 with only the text that was read (the paytable shown to players marks them)."""

from __future__ import annotations

import json
from pathlib import Path

from games.stjernestoev.model import load_model
from mathtools.stjernestoev_sheet import RARE_AWARDS_FILE

DOCS = Path(__file__).resolve().parents[4] / "docs" / "math" / "stjernestoev"
SHEET = (DOCS / "parsheet.md").read_text()
FIGURES = json.loads((DOCS / "parsheet.json").read_text())
PAYTABLE = json.loads((DOCS / "player-paytable.json").read_text())
SOURCES = json.loads(RARE_AWARDS_FILE.read_text())


def test_the_displayed_rtp_is_the_seeds_93_97_and_the_estimate_with_reseeds_is_stated_beside_it():
    assert "**Displayed RTP: 93.97 %**" in SHEET
    assert "the long-run return is 94.015 %" in SHEET


def test_the_forfeits_value_is_stated_from_the_result_computed_for_this_model():
    forfeit = json.loads((DOCS / "forfeit-value.json").read_text())
    assert forfeit["model_sha256"] == load_model().sha256 == FIGURES["forfeit"]["model_sha256"]
    assert f"**{forfeit['mean_x_stake']:.4f} × stake**" in SHEET
    low, high = forfeit["ci99_x_stake"]
    assert 0 < low < forfeit["mean_x_stake"] < high


def test_every_award_not_shown_to_meet_the_bar_at_99_percent_is_marked_not_reachable_in_the_players_paytable():
    bar = SOURCES["bar_one_in"]
    marked = {a["award"] for a in PAYTABLE["clusters"] if not a["reachable_in_practice"]}
    for row in FIGURES["awards"]:
        if row["award"].startswith("wheel"):
            continue
        rare_end = row["ci99_one_in"][1] if "ci99_one_in" in row else row["one_in"]
        assert (row["award"] in marked) == (rare_end is None or rare_end > bar), row["award"]
    assert (
        set(FIGURES["bar"]["rarer_than_1e8"]) - {a for a in FIGURES["bar"]["rarer_than_1e8"] if "wheel" in a} <= marked
    )
    supernova = {
        w["stake_minor"]: w["reachable_in_practice"] for w in PAYTABLE["wheel"] if w["award"] == "wheel supernova"
    }
    assert (supernova[50], supernova[100]) == (False, True)


def test_the_position_quotes_only_what_was_read_with_its_source_and_relies_on_no_disclosure_clause():
    for source in SOURCES["read"]:
        assert source["url"] in SHEET and source["text"] in SHEET
    for missing in SOURCES["not_obtained"]:
        assert missing["clause"] in SHEET
    assert "disclosed odds, GLI-19" not in SHEET
    assert "GLI-19 §4.7.3)" not in SHEET
