"""`reelstream projector run|rebuild|status`: the Postgres projection of every event topic."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from reelstream.output import FORMAT, UNITS, Column, Format, Units, View, emit

app = typer.Typer(no_args_is_help=True)
console = Console(stderr=True)


@app.command()
def run() -> None:
    """Run the projector in the foreground until SIGTERM/SIGINT (same as `reelstream services run projector`)."""
    from services.projector.app import main

    main()


@app.command()
def rebuild(
    keep_previous: bool = typer.Option(False, "--keep-previous", help="Keep the replaced schema (default: drop it)."),
) -> None:
    """Fold every event from the earliest offsets into a fresh schema, then switch to it atomically."""
    from services.projector.adapters.rebuild import beginning_offsets, end_offsets, total_to_read
    from services.projector.adapters.rebuild import rebuild as run_rebuild
    from services.projector.app import live_config

    config = live_config()
    total = total_to_read(
        asyncio.run(beginning_offsets(config.bootstrap, config.topics)),
        asyncio.run(end_offsets(config.bootstrap, config.topics)),
    )
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("records"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("rebuild", total=total or None)

        def advance(progress) -> None:
            done = progress.events + progress.dead_letters
            bar.update(task, completed=min(done, total) if total else done)

        def phase(name: str, detail: str) -> None:
            bar.console.print(f"[bold]{name}[/bold]: {detail}")

        started = datetime.now(timezone.utc)
        result = asyncio.run(
            run_rebuild(config, started, keep_previous=keep_previous, on_batch=advance, on_phase=phase)
        )
    seconds = (datetime.now(timezone.utc) - started).total_seconds()
    console.print(
        f"switched to [bold]{result.schema}[/bold] (was {result.previous}); {result.events} events, "
        f"{result.rows} rows, "
        f"{result.dead_letters} dead letters in {seconds:.1f} s ({result.events / max(seconds, 1e-9):,.0f} events/s); "
        f"previous schema {'dropped' if result.dropped_previous else 'kept'}"
    )


STATUS_COLUMNS = [
    Column("topic", "topic", "code"),
    Column("partition", "part", "number"),
    Column("next_offset", "next offset", "number", priority=1),
    Column("end", "end (stable)", "number", priority=1),
    Column("lag", "records behind", "number"),
]


@app.command()
def status(format: Format = FORMAT, units: Units = UNITS) -> None:
    """The live schema, its position and how many records it is behind per partition (transaction markers are not
    records), and its row counts; exit 3 when there is no projection yet."""
    schema, positions, counts = asyncio.run(_status())
    from kafka import TopicPartition

    from ops.groups import committed_records_between
    from services.projector.app import live_config
    from shared.config import load_settings
    from shared.kafka import CONSUMER_SAFETY, kafka_consumer

    config, prefix = live_config(), load_settings().topic_prefix
    reader = kafka_consumer(
        config.bootstrap,
        group_id=None,
        client_id="reelstream-projector-status",
        **{**CONSUMER_SAFETY, "enable_auto_commit": False},
    )
    try:
        partitions = [TopicPartition(t, p) for t in config.topics for p in sorted(reader.partitions_for_topic(t) or ())]
        ends = reader.end_offsets(partitions)
        rows = []
        for tp in partitions:
            at = positions.get((tp.topic, tp.partition), 0)
            behind, exact = committed_records_between(reader, tp, at, ends[tp])
            rows.append(
                {
                    "topic": tp.topic.removeprefix(prefix),
                    "partition": tp.partition,
                    "next_offset": at,
                    "end": ends[tp],
                    "lag": behind if exact else f"≥{behind:,}",
                }
            )
    finally:
        reader.close(autocommit=False)
    tables = [{"table": table, "rows": count} for table, count in counts.items()]
    emit(
        [
            View("positions", STATUS_COLUMNS, rows, title=f"live schema {schema}"),
            View("tables", [Column("table", "table"), Column("rows", "rows", "number")], tables),
        ],
        format,
        units,
        Console(highlight=False),
    )


async def _status():
    from services.projector.adapters.runner import connect
    from services.projector.adapters.schema import CONTROL, active_schema, quoted
    from services.projector.adapters.store import load_positions
    from services.projector.app import live_config
    from services.projector.core.tables import COMPARED_TABLES

    config = live_config()
    conn = await connect(config.database_url)
    try:
        exists = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", f"{CONTROL}.active")
        schema = await active_schema(conn) if exists else None
        if schema is None:
            typer.echo("no projection yet (start the projector: `reelstream services run projector`)", err=True)
            raise typer.Exit(3)
        positions = await load_positions(conn, schema)
        counts = {t: await conn.fetchval(f"SELECT count(*) FROM {quoted(schema)}.{t}") for t in COMPARED_TABLES}
    finally:
        await conn.close()
    return schema, positions, counts
