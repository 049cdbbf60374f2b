"""What the Rising Joker par sheet states beyond the enumeration: the displayed RTP, the exact pool return at every
stake and the finite-session reading of 'the same return at every stake'."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from mathtools.parsheet_common import displayed_rtp_percent
from shared.pools import load_pools

DOCS = Path(__file__).resolve().parents[4] / "docs" / "math" / "rising-joker"
FIGURES = json.loads((DOCS / "parsheet.json").read_text())
SHEET = (DOCS / "parsheet.md").read_text()


def test_the_displayed_rtp_is_the_stake_funded_return_truncated_to_two_decimals():
    shown = displayed_rtp_percent(FIGURES["rtp"]["total"]["percent"])
    assert shown == "95.50 %"
    assert f"**Displayed RTP: {shown}**" in SHEET


def test_every_stake_gets_back_exactly_the_tiers_contribution_rates_from_the_pools():
    network = load_pools("pools-v1").network_for_game("rising-joker")
    by_stake: dict[int, Fraction] = {}
    for row in FIGURES["pool_economics"]:
        rate = Fraction(network.pool_for_tier(row["tier"]).contribution_ppm, 1_000_000)
        assert Fraction(row["pool_return_exact"]["fraction"]) == rate
        by_stake[row["stake_minor"]] = by_stake.get(row["stake_minor"], Fraction(0)) + rate
    assert set(by_stake.values()) == {Fraction(1, 100)}
    assert "| 0.10 | diamond | 3,461,909 | 0.5 % | 0.400 % |" in SHEET


def test_the_finite_session_reading_bounds_the_shortfall_by_the_half_cent_held_at_the_end():
    assert "### A finite session" in SHEET
    assert "long-run stationary expectation" in SHEET
    assert "| 10 | 0.0250 pp; 0.0500 pp |" in SHEET  # ¼ and ½ cent over 100 spins of 10 cents
