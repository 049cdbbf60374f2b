"""Test-only crash hooks: REELSTREAM_CRASH_AT="wallet.after_produce:3" kills the process like a SIGKILL (exit 137, no
cleanup) the 3rd time it passes that point; only with REELSTREAM_TEST_HOOKS=1 outside production."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from shared import test_only

CRASH_EXIT_CODE = 137
_counts: dict[str, int] = {}


def _targets(environ: Mapping[str, str] = os.environ) -> dict[str, int]:
    if not test_only.armed(environ, "REELSTREAM_CRASH_AT"):
        return {}
    targets = {}
    for item in filter(None, (part.strip() for part in environ["REELSTREAM_CRASH_AT"].split(","))):
        name, _, nth = item.partition(":")
        targets[name] = int(nth or "1")
    return targets


_TARGETS = _targets()


def crash_point(name: str) -> None:
    """Die here if this point is armed and reached for the armed time."""
    if name not in _TARGETS:
        return
    _counts[name] = _counts.get(name, 0) + 1
    if _counts[name] == _TARGETS[name]:
        sys.stderr.write(f"reelstream: crash hook {name} fired (hit {_counts[name]})\n")
        sys.stderr.flush()
        os._exit(CRASH_EXIT_CODE)
