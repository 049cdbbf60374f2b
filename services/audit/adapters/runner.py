"""`reelstream audit` end to end: read the raw topics, run the pure audit, compare the projection, write the report."""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from services.audit.adapters import checkpoints
from services.audit.adapters.evidence import check_evidence
from services.audit.adapters.topics import AUDITED_TOPICS, StartsMismatch, read_checked
from shared.topics import WALLET_SEAMLESS
from services.audit.core.audit import AuditResult, run_audit
from services.audit.core.findings import Discrepancy, sort_key
from services.audit.core.projection import compare_projection
from services.audit.core.rederive import EngineLookup, default_lookup
from services.audit.core.scope import Scope
from services.audit.core.seam import cut, encode_seam
from services.audit.core.trust import untrusted_commands
from shared.config import Settings
from shared.invariant import invariant
from shared.records import COMMAND_TOPICS

# Read whole by every audit, positioned by no checkpoint: the command topics (kept days, checked for signatures only)
# and wallet.seamless (every seamless round judged over all of its facts; a checkpoint that predates it still fits).
WHOLE_TOPICS = COMMAND_TOPICS | {WALLET_SEAMLESS}


@dataclass
class AuditRun:
    result: AuditResult
    discrepancies: list[Discrepancy]
    projection: str  # how the projection comparison went, in words
    end_offsets: dict[tuple[str, int], int]
    report: dict[str, Path] | None = None
    resumed: checkpoints.Stored | None = None  # the checkpoint this audit continued from (None: a full audit)
    checkpoint: Path | None = None  # the checkpoint it wrote
    checkpoint_digest: str | None = None


@dataclass(frozen=True)
class Checkpointing:
    """Where checkpoints are read and written: `resume` continues from the one at `path`; `write` leaves a new one
    there (only an unscoped audit writes one); `keys` holds the auditor's signing key."""

    path: Path
    keys: Path
    resume: bool = False
    write: bool = True


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """The cyclic garbage collector off while the history is read and folded: it allocates millions of objects that
    live to the end, and each collection pass walks them all again (measured: docs/audit.md)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # what the audit holds stays out of later passes too (else the first one walks it all: seconds)
        if was_enabled:
            gc.enable()


Progress = Callable[[str, int, int | None], None]  # (phase, done, total or None)


class _PlayReported:
    """An engine whose every play is reported when done (the first one compiles a numba kernel: seconds)."""

    def __init__(self, engine, done: Callable[[], None]) -> None:
        self._engine, self._done = engine, done

    def play(self, *args, **kwargs):
        try:
            return self._engine.play(*args, **kwargs)
        finally:
            self._done()

    def __getattr__(self, name: str):
        return getattr(self._engine, name)


def counting(lookup: EngineLookup, phase: str, total: int, progress: Progress) -> EngineLookup:
    """The same engine lookup, reporting each spin re-derived (each play: the core also looks engines up to check
    their pins), and, as a phase of its own, the first use of each engine (loading and compiling it takes seconds)."""
    done, warm, shown = 0, set(), set()

    def counted(game: str, model_version: str):
        label = f"loading {game} engine"
        if (game, model_version) not in warm and label not in shown:
            shown.add(label)
            progress(label, 0, 1)

        def played() -> None:
            nonlocal done
            done += 1
            if (game, model_version) not in warm:
                warm.add((game, model_version))
                progress(label, 1, 1)
            if done % 10 == 0 or done == total:
                progress(phase, min(done, total), total)

        return _PlayReported(lookup(game, model_version), played)

    return counted


def records_behind(records: list, positions: dict[tuple[str, int], int]) -> int:
    """Records read by the audit that the projector has not reached: transaction markers occupy offsets but are
    not records, so an idle platform is 0 behind even when the projector's position sits before a marker."""
    return sum(1 for r in records if r.offset >= positions.get((r.topic, r.partition), 0))


def audit_platform(
    settings: Settings,
    scope: Scope,
    out_dir: Path | None = None,
    with_projection: bool = True,
    lookup: EngineLookup = default_lookup,
    progress: Progress = lambda phase, done, total: None,
    checkpointing: Checkpointing | None = None,
    at_rest: bool = False,
) -> AuditRun:
    """The audit of the platform's topics: all of them from the first offset, or (`checkpointing.resume`) what came
    after the verified checkpoint, continuing its seam. Raises checkpoints.CheckpointError for a refused one.
    `at_rest`: nothing is in flight (a run's end), so every open debit is a finding (core.audit.run_audit)."""
    prefix = settings.topic_prefix
    resumed = None
    if checkpointing is not None and checkpointing.resume:
        invariant(scope == Scope(), "an audit from a checkpoint has no scope")
        resumed = checkpoints.load(checkpointing.path, prefix, checkpointing.keys)
    with concurrent.futures.ThreadPoolExecutor(1) as background:
        # The evidence check's own clients (configs, log starts) connect while the history is read and folded.
        evidence = background.submit(check_evidence, settings.kafka_bootstrap_servers, prefix)
        result, records, end_offsets, found = _read_and_fold(
            settings, scope, lookup, progress, resumed, checkpointing, at_rest
        )
        found += evidence.result()
    status = "not compared (--no-projection)"
    if with_projection and resumed is not None:
        status = "not compared (an audit from a checkpoint; a full audit compares it row by row)"
    elif with_projection:
        status = _compare_projection(settings, result, records, end_offsets, found, progress)
    found.sort(key=sort_key)
    run = AuditRun(result, found, status, end_offsets, resumed=resumed)
    if checkpointing is not None and checkpointing.write and scope == Scope():
        body = encode_seam(cut(result, end_offsets))
        previous = resumed.digest if resumed else None
        run.checkpoint_digest = checkpoints.write(checkpointing.path, body, prefix, checkpointing.keys, previous)
        run.checkpoint = checkpointing.path
    if out_dir is not None:
        from services.audit.adapters.report import write_report

        progress("writing the report", 0, 1)
        run.report = write_report(result, found, out_dir, status)
        progress("writing the report", 1, 1)
    return run


def _read_and_fold(
    settings: Settings, scope: Scope, lookup: EngineLookup, progress: Progress, resumed, checkpointing, at_rest: bool
):
    """The records read (each checked as it arrives), the audit of the event topics, and the command topics' findings;
    the collector paused while they are read and folded."""
    with collection_paused():
        try:
            read, checked, read_ends = read_checked(
                settings.kafka_bootstrap_servers,
                settings.topic_prefix,
                AUDITED_TOPICS + tuple(sorted(COMMAND_TOPICS)),
                progress=lambda done, total: progress("reading topics", done, total),
                starts=resumed.seam.positions if resumed else None,
            )
        except StartsMismatch as error:
            raise checkpoints.CheckpointError(f"checkpoint {checkpointing.path} does not fit: {error}") from None
        events = [(record, problem) for record, problem in zip(read, checked) if record.topic not in COMMAND_TOPICS]
        commands = [(record, problem) for record, problem in zip(read, checked) if record.topic in COMMAND_TOPICS]
        records = [record for record, _ in events]
        end_offsets = {where: end for where, end in read_ends.items() if where[0] not in WHOLE_TOPICS}
        result = _fold(records, [problem for _, problem in events], scope, lookup, progress, resumed, at_rest)
    # Command topics (read for the signature check only) keep days, not years: read whole every time.
    found = list(result.discrepancies) + untrusted_commands([r for r, _ in commands], [p for _, p in commands])
    return result, records, end_offsets, found


def _fold(
    records: list, problems: list, scope: Scope, lookup: EngineLookup, progress: Progress, resumed, at_rest: bool
) -> AuditResult:
    progress("reading topics", len(records), len(records))
    spins_at_most = sum(1 for r in records if r.topic == "spin.events")
    progress("decoding and folding", 0, len(records))
    progress("re-deriving spins", 0, spins_at_most)
    result = run_audit(
        records,
        scope,
        lookup=counting(lookup, "re-deriving spins", spins_at_most, progress),
        decoded=lambda count: progress("decoding and folding", count, len(records)),
        now_ms=scope.until_ms or time.time_ns() // 1_000_000,
        seam=resumed.seam if resumed else None,
        problems=problems,
        at_rest=at_rest,
    )
    progress("decoding and folding", len(records), len(records))
    progress("re-deriving spins", spins_at_most, spins_at_most)
    return result


def _compare_projection(settings: Settings, result: AuditResult, records: list, end_offsets, found, progress) -> str:
    from services.audit.adapters.projection_db import read_snapshot_sync

    progress("comparing the projection", 0, 1)
    try:
        snapshot = read_snapshot_sync(settings.database_url, settings.topic_prefix)
    except Exception as error:  # noqa: BLE001 - an unreadable projection is a finding, not a crash
        found.append(Discrepancy("projection-unreadable", "projection", f"{type(error).__name__}: {error}"))
        return "unreadable"
    finally:
        progress("comparing the projection", 1, 1)
    projection_found = compare_projection(result, snapshot, end_offsets)
    found += projection_found
    lag = records_behind(records, snapshot.positions)
    return f"compared row by row ({len(projection_found)} differences; projector {lag} records behind the audit)"
