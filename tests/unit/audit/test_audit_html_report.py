"""The auditor's HTML report opens in headless Chromium: verdict, scope in words, RTP with Stjernestøv's par, plots
embedded and drawn; no raw dict, None or micro-unit on the page. REELSTREAM_SCREENSHOT=PATH saves what it shows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.synthetic.spins import play_history, stand_in_lookup
from services.audit.adapters.report import write_report
from services.audit.adapters.runner import records_behind
from services.audit.core.audit import run_audit


@pytest.fixture(scope="module")
def history():
    return play_history(seed=5, players=2, spins_per_player=20)


def test_the_html_report_opens_and_reads_as_a_report(browser, history, tmp_path):
    result = run_audit(history.records(), lookup=stand_in_lookup)
    status = "compared row by row (0 differences; 0 records behind)"
    paths = write_report(result, result.discrepancies, tmp_path, status)
    browser.get(paths["html"].as_uri())
    heading = browser.find_element("tag name", "h1").text
    assert heading == "Audit report: 0 discrepancies"
    text = browser.find_element("tag name", "body").text
    assert "for every player and every jackpot network" in text
    assert "stjernestoev" in text and "no par sheet found" not in text
    for raw in ("None", "{'", "_micro", "True", "False"):
        assert raw not in text, raw
    images = browser.find_elements("tag name", "img")
    assert len(images) == 2
    assert all(
        browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 100", image)
        for image in images
    )
    assert 'src="data:image/png;base64,' in paths["html"].read_text()  # self-contained
    if shot := os.environ.get("REELSTREAM_SCREENSHOT"):
        browser.set_window_size(1280, 2400)
        browser.save_screenshot(str(Path(shot)))


def test_records_behind_count_records_so_transaction_markers_are_not_lag(history):
    records = history.records()
    last = {}
    for record in records:
        last[(record.topic, record.partition)] = record.offset
    # The projector has every record; its position may sit before the commit marker or after it.
    assert records_behind(records, {key: offset + 1 for key, offset in last.items()}) == 0
    assert records_behind(records, {key: offset + 2 for key, offset in last.items()}) == 0
    some = next(iter(last))
    assert records_behind(records, {**{key: offset + 1 for key, offset in last.items()}, some: last[some]}) == 1
