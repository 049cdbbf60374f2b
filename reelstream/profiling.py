"""cProfile a block of code into a stats file: the benches' --profile and `services run` under
REELSTREAM_PROFILE_DIR."""

from __future__ import annotations

import contextlib
import cProfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def profiled(path: Path | None) -> Iterator[None]:
    """cProfile what runs inside into `path` (its folder made if missing), written even when it raises; nothing when
    None."""
    if path is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        yield
    finally:
        profiler.disable()
        profiler.dump_stats(path)
