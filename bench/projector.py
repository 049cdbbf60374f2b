"""Projector throughput: live rows/s and rebuild events/s as ratios against asyncpg executemany and COPY baselines."""

# One run, one fresh database and fresh uuid-prefixed topics: the same rows are written three ways — executemany in
# 1,000-row batches, COPY in 5,000-row batches (both straight into the projection's tables, no Kafka, no decode, no
# de-duplication; each measured before and after the projector, times averaged), and by the projector itself (Kafka →
# decode → stage → de-duplicate → fold → positions, one transaction per fetch) — then a rebuild folds the same log
# into a fresh schema.

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import asyncpg
import typer
from rich.console import Console
from rich.table import Table

from reelstream.profiling import profiled
from bench.synthetic.publish import publish
from services.projector.adapters.rebuild import end_offsets, rebuild
from services.projector.adapters.runner import Projector, ProjectorConfig, batch_gc
from services.projector.adapters.schema import migrate
from services.projector.core.batch import MAX_BATCH_RECORDS, Batch
from services.projector.core.decoding import decode_rows
from services.projector.core.mapping import RecordMeta
from bench.synthetic.samples import sample_events
from services.projector.core.tables import COLUMNS
from services.projector.adapters.kafka_io import SOURCE_TOPICS
from shared.config import load_settings
from deploy.local.postgres import drop_database
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS

EXECUTEMANY_BATCH = 1_000
COPY_BATCH = 5_000
TARGET_RATIO = 0.5


def _rows(samples) -> dict[str, list[tuple]]:
    """The rows the projector writes for the samples (staged in batches of at most MAX_BATCH_RECORDS)."""
    rows: dict[str, list[tuple]] = {}
    for start in range(0, len(samples), MAX_BATCH_RECORDS):
        batch = Batch()
        for offset, sample in enumerate(samples[start : start + MAX_BATCH_RECORDS], start):
            batch.add_event(sample.envelope, RecordMeta(sample.topic, 0, offset, sample.envelope.time))
        for table, table_rows in batch.rows.items():
            rows.setdefault(table, []).extend(table_rows)
    return rows


async def _baseline(url: str, schema: str, rows: dict[str, list[tuple]], copy: bool) -> float:
    """Seconds to write every row into a fresh schema, one transaction per batch."""
    conn = await asyncpg.connect(url)
    try:
        await migrate(conn, schema)
        started = time.perf_counter()
        size = COPY_BATCH if copy else EXECUTEMANY_BATCH
        for table, table_rows in rows.items():
            columns = COLUMNS[table]
            names = ", ".join(f'"{column}"' for column in columns)
            values = ", ".join(f"${index + 1}" for index in range(len(columns)))
            insert = f'INSERT INTO "{schema}".{table} ({names}) VALUES ({values})'
            for start in range(0, len(table_rows), size):
                chunk = table_rows[start : start + size]
                async with conn.transaction():
                    if copy:
                        await conn.copy_records_to_table(
                            table, records=chunk, columns=list(columns), schema_name=schema
                        )
                    else:
                        await conn.executemany(insert, chunk)
        return time.perf_counter() - started
    finally:
        await conn.close()


async def _live(config: ProjectorConfig, until) -> tuple[float, int, int]:
    marks: dict[str, float] = {}
    progress = await Projector(config).run(
        asyncio.Event(), until=until, on_ready=lambda p: marks.setdefault("ready", time.perf_counter())
    )
    return time.perf_counter() - marks["ready"], progress.rows, progress.events


async def _admin(url: str, sql: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _decode_ceiling(samples) -> float:
    """events/s of decode (shared.events.decode) + row mapping alone, in this process: the projector's CPU ceiling."""
    from shared.events import encode

    raw = [("t", 0, offset, 0, encode(sample.envelope)) for offset, sample in enumerate(samples)]
    with batch_gc():  # the collector settings the projector runs with
        started = time.perf_counter()
        decode_rows(raw)
        return len(raw) / (time.perf_counter() - started)


async def _round(settings, samples, rows, decode_workers: int, profile: Path | None = None) -> dict:
    """One paired round in a fresh database: both baselines, the live projector, a rebuild (rates in rows/s);
    profile: cProfile stats of the live run and of the rebuild go to <profile>-live.prof and <profile>-rebuild.prof."""
    prefix, database = f"bench-pj-{uuid.uuid4().hex[:10]}.", f"bench_{uuid.uuid4().hex}"
    url = settings.database_url.rsplit("/", 1)[0] + "/" + database
    ensure_topics(settings.kafka_bootstrap_servers, prefix=prefix)
    await _admin(settings.database_url, f'CREATE DATABASE "{database}"')
    try:
        publish(settings.kafka_bootstrap_servers, samples, lambda name: prefix + name)
        row_count = sum(len(r) for r in rows.values())
        # The baselines bracket the projector (before and after it, averaged): the machine's load drifts within a
        # round, and a ratio against baselines measured only at its start carried that drift.
        executemany_s = [await _baseline(url, "proj_base_executemany", rows, copy=False)]
        copy_s = [await _baseline(url, "proj_base_copy", rows, copy=True)]
        config = ProjectorConfig(
            settings.kafka_bootstrap_servers,
            url,
            tuple(prefix + t for t in SOURCE_TOPICS),
            decode_workers=decode_workers,
            topic_prefix=prefix,
        )
        until = await end_offsets(config.bootstrap, config.topics)
        with profiled(profile and profile.with_name(profile.name + "-live.prof")):
            live_s, live_rows, live_events = await _live(config, until)
        marks: list[tuple[str, float]] = [("start", time.perf_counter())]
        with profiled(profile and profile.with_name(profile.name + "-rebuild.prof")):
            rebuilt = await rebuild(
                config,
                datetime.now(timezone.utc),
                on_phase=lambda phase, detail: marks.append((phase, time.perf_counter())),
            )
        marks.append(("end", time.perf_counter()))
        rebuild_s = marks[-1][1] - marks[0][1]
        copy_s.append(await _baseline(url, "proj_base_copy_after", rows, copy=True))
        executemany_s.append(await _baseline(url, "proj_base_executemany_after", rows, copy=False))
    finally:
        try:
            await drop_database(settings.database_url, database)
        finally:  # the round's topics go even when its database could not be dropped
            delete_topics(settings.kafka_bootstrap_servers, [prefix + spec.name for spec in ALL_TOPICS])
    return {
        "decode_ceiling_events": _decode_ceiling(samples),
        "executemany": row_count * len(executemany_s) / sum(executemany_s),
        "copy": row_count * len(copy_s) / sum(copy_s),
        "executemany_before_after": [row_count / s for s in executemany_s],
        "copy_before_after": [row_count / s for s in copy_s],
        "live": live_rows / live_s,
        "live_events": live_events / live_s,
        "rebuild": rebuilt.rows / rebuild_s,
        "rebuild_events": rebuilt.events / rebuild_s,
        "rebuild_s": rebuild_s,
        "rebuild_phases_s": _phases(marks),
    }


def _phases(marks: list[tuple[str, float]]) -> dict[str, float]:
    """Seconds from each phase mark of rebuild() to the next ("start": connections and the control schema)."""
    return {name: after - at for (name, at), (_, after) in zip(marks, marks[1:])}


async def measure(spins: int, decode_workers: int, rounds: int, profile: Path | None = None) -> dict:
    """Paired rounds (the machine is shared: ratios are taken within a round, then the median over rounds)."""
    settings = load_settings()
    samples = sample_events(spins, datetime(2026, 11, 30, tzinfo=timezone.utc), tag="bench")
    rows = _rows(samples)
    row_count = sum(len(r) for r in rows.values())
    results = [await _round(settings, samples, rows, decode_workers, profile) for _ in range(rounds)]
    median = lambda key: statistics.median(r[key] for r in results)  # noqa: E731
    ratio = lambda a, b: statistics.median(r[a] / r[b] for r in results)  # noqa: E731
    return {
        "when": datetime.now(timezone.utc).isoformat(),
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "events": len(samples),
        "rows": row_count,
        "rows_per_event": row_count / len(samples),
        "rounds": results,
        "executemany_rows_per_s": median("executemany"),
        "copy_rows_per_s": median("copy"),
        "live_rows_per_s": median("live"),
        "live_events_per_s": median("live_events"),
        "rebuild_events_per_s": median("rebuild_events"),
        "rebuild_rows_per_s": median("rebuild"),
        "decode_and_map_only_events_per_s": median("decode_ceiling_events"),
        "copy_events_per_s": median("copy") * len(samples) / row_count,
        "ratios": {
            "live_vs_executemany": ratio("live", "executemany"),
            "live_vs_copy": ratio("live", "copy"),
            "rebuild_vs_executemany": ratio("rebuild", "executemany"),
            "rebuild_vs_copy": ratio("rebuild", "copy"),
        },
        "target_ratio": TARGET_RATIO,
        "decode_workers": decode_workers,
        "rebuild_phases_s": {
            phase: statistics.median(r["rebuild_phases_s"].get(phase, 0.0) for r in results)
            for phase in results[0]["rebuild_phases_s"]
        },
        "load_average_1m_after": os.getloadavg()[0],
    }


def command(
    spins: int = typer.Option(3000, help="Sample spins to generate (~5 events and ~19 rows each)."),
    out: Path = typer.Option(Path("bench-results/projector.json"), help="Where to write the JSON results."),
    decode_workers: int = typer.Option(0, help="Decode worker processes of the projector (0: decode in-process)."),
    rounds: int = typer.Option(3, help="Paired rounds; ratios are medians over rounds."),
    profile: Path | None = typer.Option(
        None,
        help="cProfile the live run and the rebuild into PATH-live.prof and "
        "PATH-rebuild.prof (the last round's; slows them down).",
    ),
) -> None:
    """Projector: live rows/s and rebuild events/s vs asyncpg executemany (1,000-row batches) and COPY baselines."""
    result = asyncio.run(measure(spins, decode_workers, rounds, profile))
    table = Table(
        title=f"projector bench: {result['events']:,} events, {result['rows']:,} rows, "
        f"median of {rounds} rounds, {decode_workers} decode workers"
    )
    for column in ("what", "rows/s", "events/s", "× executemany", "× COPY"):
        table.add_column(column, justify="right")
    per_event = result["rows_per_event"]
    table.add_row(
        "executemany (1,000-row batches)",
        f"{result['executemany_rows_per_s']:,.0f}",
        f"{result['executemany_rows_per_s'] / per_event:,.0f}",
        "1.00",
        "",
    )
    table.add_row(
        "COPY (5,000-row batches)",
        f"{result['copy_rows_per_s']:,.0f}",
        f"{result['copy_rows_per_s'] / per_event:,.0f}",
        "",
        "1.00",
    )
    ratios = result["ratios"]
    table.add_row(
        "projector live",
        f"{result['live_rows_per_s']:,.0f}",
        f"{result['live_events_per_s']:,.0f}",
        f"{ratios['live_vs_executemany']:.2f}",
        f"{ratios['live_vs_copy']:.2f}",
    )
    table.add_row(
        "projector rebuild",
        f"{result['rebuild_rows_per_s']:,.0f}",
        f"{result['rebuild_events_per_s']:,.0f}",
        f"{ratios['rebuild_vs_executemany']:.2f}",
        f"{ratios['rebuild_vs_copy']:.2f}",
    )
    Console().print(table)
    print(
        "rebuild phases (median s): "
        + ", ".join(f"{phase} {seconds:.3f}" for phase, seconds in result["rebuild_phases_s"].items())
    )
    print(
        f"decode + map alone (no Kafka, no Postgres): {result['decode_and_map_only_events_per_s']:,.0f} events/s "
        f"= {result['decode_and_map_only_events_per_s'] / result['copy_events_per_s']:.2f}× "
        "the COPY baseline's events/s"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    below = {name: value for name, value in ratios.items() if value < TARGET_RATIO}
    print(f"target ≥ {TARGET_RATIO}×: {'met' if not below else 'MISSED ' + json.dumps(below)}; results in {out}")
