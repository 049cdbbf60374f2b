"""The `stall` lines a service's StallWatch logs (shared/observability/stalls.py), summed over a bench phase's wall
time windows: how often, how long and where a process's event loop was blocked while the phase ran."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import orjson

TOP_SITES = 3


def stalls_in(log_text: str, windows: list[tuple[float, float]]) -> dict:
    """Stalls whose end (the log line's time) falls in one of the (start, end) epoch-second windows: their count,
    total, largest and collector milliseconds, milliseconds by cause (gc, code, waiting), and the sites that blocked
    longest."""
    found = []
    for line in log_text.splitlines():
        if '"stall_ms"' not in line:
            continue
        try:
            entry = orjson.loads(line)
            at = datetime.fromisoformat(entry["time"]).timestamp()
            stall_ms, gc_ms, site = float(entry["stall_ms"]), float(entry["gc_ms"]), str(entry["site"])
            cause = str(entry.get("cause", "?"))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            continue  # a torn or foreign line
        if any(start <= at <= end for start, end in windows):
            found.append((stall_ms, gc_ms, site, cause))
    by_site: Counter = Counter()
    by_cause: Counter = Counter()
    for stall_ms, _, site, cause in found:
        by_site[site] += stall_ms
        by_cause[cause] += stall_ms
    return {
        "count": len(found),
        "total_ms": round(sum(s for s, _, _, _ in found)),
        "max_ms": round(max((s for s, _, _, _ in found), default=0.0)),
        "gc_ms": round(sum(g for _, g, _, _ in found)),
        "by_cause_ms": {cause: round(ms) for cause, ms in sorted(by_cause.items())},
        "sites": [{"site": site, "total_ms": round(ms)} for site, ms in by_site.most_common(TOP_SITES)],
    }
