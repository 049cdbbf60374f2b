"""The figures are generated from the result files: the README's table, docs/figures.md and its charts are what the
renderer writes now, and the renderer reads provenance, orders runs and draws without a clock."""

from __future__ import annotations

import json
from pathlib import Path

from reelstream.figures import (
    FIGURES,
    ROOT,
    Figure,
    figures_page,
    headline_table,
    points,
    provenance,
    rendered,
    sparkline,
)


def test_every_rendered_file_is_what_make_figures_would_write_now():
    for path, text in rendered().items():
        assert path.exists(), f"missing: {path.relative_to(ROOT)}; run make figures"
        assert path.read_text() == text, f"stale: {path.relative_to(ROOT)}; run make figures"


def test_no_chart_is_left_over_from_a_figure_the_renderer_no_longer_draws():
    drawn = {path for path in rendered() if path.suffix == ".svg"}
    assert set((ROOT / "docs" / "figures").glob("*.svg")) == drawn


def test_no_result_file_sits_in_the_docs_root():
    assert not list((ROOT / "docs").glob("*.json"))


def test_every_result_file_is_json_and_states_a_date_or_says_it_is_unknown():
    for path in (ROOT / "docs" / "results").rglob("*.json"):
        date, commit, machine = provenance(json.loads(path.read_text()))
        assert date and commit and machine, path


def write(folder: Path, name: str, document: dict) -> None:
    (folder / "results").mkdir(exist_ok=True)
    (folder / "results" / name).write_text(json.dumps(document))


def ratio_figure() -> Figure:
    return Figure("ratio", "the ratio", "results/*.json", lambda d: d.get("ratio"), "≥ 1.0", 2, "ratio")


def test_runs_come_oldest_first_and_undated_ones_last_whatever_their_names(tmp_path):
    write(tmp_path, "a.json", {"ratio": 0.5, "provenance": {"date": "2026-12-05T09:00Z", "commit": "abc"}})
    write(tmp_path, "b.json", {"ratio": 0.4, "provenance": {"date": "2026-12-01T09:00Z"}})
    write(tmp_path, "c.json", {"ratio": 0.9})
    write(tmp_path, "d.json", {"other": 1})
    series = points(ratio_figure(), tmp_path)
    assert [p.path for p in series] == ["results/b.json", "results/a.json", "results/c.json"]
    assert [(p.commit, p.date) for p in series] == [
        ("unknown", "2026-12-01T09:00Z"),
        ("abc", "2026-12-05T09:00Z"),
        ("unknown", "unknown"),
    ]


def test_a_run_without_provenance_is_dated_by_its_own_start_time(tmp_path):
    write(tmp_path, "a.json", {"ratio": 1.5, "started_at": "2026-12-02T17:00:36+00:00"})
    assert points(ratio_figure(), tmp_path)[0].date == "2026-12-02T17:00Z"


def test_the_page_lists_every_run_and_renders_the_same_twice(tmp_path, monkeypatch):
    import reelstream.figures as figures

    for hour in range(3):
        write(tmp_path, f"{hour}.json", {"ratio": hour / 2, "provenance": {"date": f"2026-12-0{hour + 1}"}})
    monkeypatch.setattr(figures, "FIGURES", (ratio_figure(),))
    page = figures_page(tmp_path)
    assert page == figures_page(tmp_path)
    assert page.count("| 2026-12-0") == 3
    assert "![the ratio](figures/ratio.svg)" in page
    assert headline_table(tmp_path).splitlines()[-1] == "| ratio | 1.00 | ≥ 1.0 | [history](docs/figures.md#ratio) |"


def test_a_sparkline_spans_its_lowest_to_its_highest_bar():
    assert sparkline([1.0, 2.0, 3.0]) == "▁▅█"
    assert sparkline([2.0, 2.0]) == "▄▄"


def test_only_a_one_sided_target_is_drawn_as_a_line():
    from reelstream.figures import target_value

    assert target_value("≥ 1.0") == 1.0
    assert target_value("< 5") == 5.0
    assert target_value("95.50 ± 0.05") is None
    assert target_value("") is None


def test_the_bytes_figure_reads_the_row_of_its_load_and_nothing_from_a_run_without_it():
    figure = next(f for f in FIGURES if f.key == "spin-bytes-kept-forever-at-250")
    rows = [{"spins_per_s": 50.0, "kept_forever": 7000}, {"spins_per_s": 250.0, "kept_forever": 6900}]

    assert figure.read({"null_sagas": True, "bytes_per_spin_by_load": rows}) == 6900
    assert figure.read({"null_sagas": True, "bytes_per_spin_by_load": rows[:1]}) is None
    assert figure.read({"null_sagas": True}) is None
