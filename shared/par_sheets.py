"""Each game's par RTP on the audit's basis, read from its committed par sheet (docs/math/<game>/parsheet.json)."""

from __future__ import annotations

import json
from pathlib import Path

MATH_DOCS = Path(__file__).resolve().parents[1] / "docs" / "math"


def par_rtp(game: str, math_docs: Path = MATH_DOCS) -> float | None:
    """The par RTP on the audit's basis (house win + contribution, a fraction) from docs/math/<game>/parsheet.json:
    the exact total when the sheet has one (Rising Joker), else the simulated main game plus the network's
    contribution rate (Stjernestøv), else the sheet's target."""
    path = math_docs / game / "parsheet.json"
    if not path.exists():
        return None
    sheet = json.loads(path.read_text())
    total = sheet.get("rtp", {}).get("total") if isinstance(sheet.get("rtp"), dict) else None
    if isinstance(total, dict) and "percent" in total:
        return float(total["percent"]) / 100
    simulated = (sheet.get("simulation") or {}).get("rtp_main")
    contribution_ppm = (sheet.get("network") or {}).get("contribution_ppm_total")
    if isinstance(simulated, float) and isinstance(contribution_ppm, int):
        return simulated + contribution_ppm / 1_000_000
    target = sheet.get("target_rtp_total")
    return float(target) if isinstance(target, (int, float)) else None
