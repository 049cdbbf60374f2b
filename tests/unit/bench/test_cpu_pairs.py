"""The CPU comparison against a base commit: each tree measured by its own harness, medians per part, ratios."""

from pathlib import Path

import pytest

from bench import cpu_pairs


def test_each_tree_is_measured_by_the_harness_it_ships(tmp_path: Path):
    (tmp_path / "reelstream" / "bench").mkdir(parents=True)
    (tmp_path / "reelstream" / "bench" / "saga_cpu.py").write_text("")
    assert cpu_pairs._harness(tmp_path) == "reelstream.bench.saga_cpu"
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "saga_cpu.py").write_text("")
    assert cpu_pairs._harness(tmp_path) == "bench.saga_cpu"
    assert cpu_pairs._harness(cpu_pairs.ROOT) == "bench.saga_cpu"


def test_a_tree_without_a_harness_is_named():
    with pytest.raises(SystemExit, match="no saga-CPU harness"):
        cpu_pairs._harness(Path("/"))


def test_medians_per_part_and_the_ratio_of_this_tree_over_the_base():
    runs = [dict.fromkeys(cpu_pairs.PARTS, value) for value in (700.0, 650.0, 800.0)]
    assert cpu_pairs.medians(runs) == dict.fromkeys(cpu_pairs.PARTS, 700.0)
    base, this = dict.fromkeys(cpu_pairs.PARTS, 800.0), dict.fromkeys(cpu_pairs.PARTS, 720.0)
    assert cpu_pairs.ratios(this, base) == dict.fromkeys(cpu_pairs.PARTS, 0.9)
