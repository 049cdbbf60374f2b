"""`reelstream math parsheet|simulate`: the committed par sheet is rewritten only when asked (--out-dir), and --json
prints only the summary (the main RTP as a fraction with its 99 % CI) on stdout."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reelstream.commands import math as math_commands
from mathtools import rising_joker


def fake_parsheet(seen: list):
    def parsheet(out_dir: Path) -> dict:
        seen.append(out_dir)
        print("narration that --json keeps off stdout")
        return {"game": "rising-joker", "rtp_main": "1/2", "rtp_main_ci99": ["1/2", "1/2"]}

    return parsheet


def test_parsheet_writes_outside_the_committed_docs_unless_an_out_dir_is_given(monkeypatch, tmp_path):
    seen: list = []
    monkeypatch.setattr(rising_joker, "parsheet", fake_parsheet(seen))
    runner = CliRunner()
    assert runner.invoke(math_commands.app, ["parsheet", "rising-joker"]).exit_code == 0
    assert runner.invoke(math_commands.app, ["parsheet", "rising-joker", "--out-dir", str(tmp_path)]).exit_code == 0
    assert seen == [Path("bench-results") / "parsheet" / "rising-joker", tmp_path]


def test_json_prints_only_the_summary_with_the_rtp_as_a_fraction(monkeypatch):
    monkeypatch.setattr(rising_joker, "parsheet", fake_parsheet([]))
    result = CliRunner().invoke(math_commands.app, ["parsheet", "rising-joker", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"game": "rising-joker", "rtp_main": "1/2", "rtp_main_ci99": ["1/2", "1/2"]}
