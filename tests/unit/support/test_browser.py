"""The shared browser fixture renders a local page (the smoke test of every browser test's ground)."""

from __future__ import annotations

from pathlib import Path


def test_the_shared_browser_renders_a_local_page(browser, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<!doctype html><title>reelstream</title><h1 id='x'>12.50 EUR</h1>")
    browser.get(page.as_uri())
    assert browser.title == "reelstream"
    assert browser.find_element("id", "x").text == "12.50 EUR"
