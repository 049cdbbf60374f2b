"""`reelstream audit` end to end: read the raw topics, run the pure audit, compare the projection, write the report."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from services.audit.adapters.topics import read_topics
from services.audit.core.audit import AuditResult, run_audit
from services.audit.core.findings import Discrepancy, sort_key
from services.audit.core.projection import compare_projection
from services.audit.core.rederive import EngineLookup, default_lookup
from services.audit.core.scope import Scope
from shared.config import Settings


@dataclass
class AuditRun:
    result: AuditResult
    discrepancies: list[Discrepancy]
    projection: str  # how the projection comparison went, in words
    end_offsets: dict[tuple[str, int], int]
    report: dict[str, Path] | None = None


def audit_platform(settings: Settings, scope: Scope, out_dir: Path | None = None, with_projection: bool = True,
                   lookup: EngineLookup = default_lookup, progress: Callable[[int, int], None] | None = None) -> AuditRun:
    records, end_offsets = read_topics(settings.kafka_bootstrap_servers, settings.topic_prefix, progress=progress)
    result = run_audit(records, scope, lookup=lookup)
    found = list(result.discrepancies)
    status = "not compared (--no-projection)"
    if with_projection:
        from services.audit.adapters.projection_db import read_snapshot_sync

        try:
            snapshot = read_snapshot_sync(settings.database_url, settings.topic_prefix)
        except Exception as error:  # noqa: BLE001 - an unreadable projection is a finding, not a crash
            found.append(Discrepancy("projection-unreadable", "projection", f"{type(error).__name__}: {error}"))
            status = "unreadable"
        else:
            projection_found = compare_projection(result, snapshot, end_offsets)
            found += projection_found
            lag = sum(max(0, end - snapshot.positions.get(key, 0)) for key, end in end_offsets.items())
            status = f"compared row by row ({len(projection_found)} differences; projector {lag} records behind the audit)"
    found.sort(key=sort_key)
    run = AuditRun(result, found, status, end_offsets)
    if out_dir is not None:
        from services.audit.adapters.report import write_report

        run.report = write_report(result, found, out_dir, status)
    return run
