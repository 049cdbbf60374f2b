"""profiled() writes a cProfile stats file of the block, even when the block raises, and nothing without a path."""

from __future__ import annotations

import pstats

import pytest

from reelstream.profiling import profiled


def _work() -> int:
    return sum(range(1000))


def test_the_block_is_profiled_into_the_file_even_when_it_raises(tmp_path):
    path = tmp_path / "new-folder" / "run.prof"
    with pytest.raises(RuntimeError), profiled(path):
        _work()
        raise RuntimeError("stop")
    assert any(name == "_work" for (_, _, name) in pstats.Stats(str(path)).stats)


def test_without_a_path_nothing_is_written(tmp_path):
    with profiled(None):
        _work()
    assert list(tmp_path.iterdir()) == []
