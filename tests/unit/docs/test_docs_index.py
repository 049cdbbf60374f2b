"""docs/README.md indexes every page under docs/, and no relative link in the README or a page is dead."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
INDEX = DOCS / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def pages() -> set[Path]:
    return {p for p in DOCS.rglob("*") if p.suffix in {".md", ".html"} and p != INDEX and "logs" not in p.parts}


def links(page: Path) -> set[Path]:
    found = set()
    for target in LINK.findall(page.read_text()):
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        found.add((page.parent / target.split("#", 1)[0]).resolve())
    return found


def test_the_index_links_every_page_under_docs():
    indexed = links(INDEX)
    missing = sorted(str(p.relative_to(DOCS)) for p in pages() if p.resolve() not in indexed)
    assert not missing, f"pages not in docs/README.md: {missing}"


def test_no_link_of_the_index_the_readme_or_a_page_is_dead():
    dead = []
    for page in sorted(pages() | {INDEX, ROOT / "README.md"}):
        dead += [f"{page.relative_to(ROOT)} -> {t.relative_to(ROOT)}" for t in links(page) if not t.exists()]
    assert not dead, dead


def test_the_readme_is_a_landing_page_short_narrow_and_undated():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    assert max(len(line) for line in text.splitlines()) <= 120
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "a dated figure belongs in docs/figures.md or docs/history/"
