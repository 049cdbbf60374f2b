"""`reelstream ops replay|dlq list|dlq redrive|reset-group`: replay ranges, re-drive dead letters, reset groups.

Every command shows a progress bar and ends with a summary; `--dry-run` reads and counts but changes nothing.
"""
from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

app = typer.Typer(no_args_is_help=True)
dlq_app = typer.Typer(no_args_is_help=True)
app.add_typer(dlq_app, name="dlq", help="List and re-drive dead-letter topics (<topic>.dlq).")
console = Console()


def _settings():
    from shared.config import load_settings

    return load_settings()


def _bar(total: int | None, description: str) -> Progress:
    return Progress(TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True))


def _summary(title: str, summary, dry_run: bool) -> None:
    table = Table(title=f"{title}{' (dry run: nothing changed)' if dry_run else ''}")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name in ("read", "written", "new_events", "undecodable", "skipped"):
        table.add_row(name.replace("_", " "), f"{getattr(summary, name):,}")
    for type_, count in sorted(summary.types.items()):
        table.add_row(f"  {type_}", f"{count:,}")
    console.print(table)
    for note in summary.notes:
        console.print(f"[yellow]{note}[/yellow]")


@app.command()
def replay(
    topic: str = typer.Option(..., help="Contract topic to read, e.g. spin.events (the deployment prefix is added)."),
    into_topic: Optional[str] = typer.Option(None, "--into-topic", help="A NEW topic (live topics are refused)."),
    into_projection: bool = typer.Option(False, "--into-projection", help="Apply to the live Postgres projection."),
    from_offset: Optional[int] = typer.Option(None, help="First offset (each partition)."),
    to_offset: Optional[int] = typer.Option(None, help="One past the last offset (each partition)."),
    since: Optional[datetime] = typer.Option(None, help="First broker time (ISO 8601 with offset)."),
    until: Optional[datetime] = typer.Option(None, help="Broker time to stop before (ISO 8601 with offset)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Read and count, change nothing, print what would happen."),
) -> None:
    """Replay a topic's range (offsets or time) into a new topic or into the projection — never into a live topic."""
    from ops import tools as ops
    from ops.rules import refusal_of_replay_target

    settings = _settings()
    if (into_topic is None) == (not into_projection):
        raise typer.BadParameter("give exactly one of --into-topic NAME or --into-projection")
    if into_topic is not None and (reason := refusal_of_replay_target(into_topic, settings.topic_prefix)):
        console.print(f"[red]refused:[/red] {reason}")
        raise typer.Exit(2)
    source = settings.topic(topic)
    ranges = asyncio.run(ops.plan_ranges(settings.kafka_bootstrap_servers, source, from_offset=from_offset,
                                         to_offset=to_offset, since=since, until=until))
    plan = Table("partition", "from", "to", "records", title=f"replay {source} → {into_topic or 'projection'}")
    for r in ranges:
        plan.add_row(str(r.partition), str(r.start), str(r.end), f"{r.size:,}")
    console.print(plan)
    total = sum(r.size for r in ranges)
    with _bar(total, "replay") as bar:
        task = bar.add_task("replay", total=total)
        tick = lambda n: bar.advance(task, n)  # noqa: E731
        if into_topic is not None:
            summary = asyncio.run(ops.replay_to_topic(settings.kafka_bootstrap_servers, source, ranges, into_topic,
                                                      dry_run=dry_run, tick=tick))
        else:
            summary = asyncio.run(ops.replay_to_projection(settings.kafka_bootstrap_servers, settings.database_url,
                                                           source, ranges, dry_run=dry_run, tick=tick))
    _summary("replay", summary, dry_run)


@dlq_app.command("list")
def dlq_list(
    topic: str = typer.Option(..., help="Dead-letter topic, e.g. spin.events.dlq (the deployment prefix is added)."),
    limit: int = typer.Option(50, help="Show at most this many (the newest)."),
) -> None:
    """Every dead letter: where it came from, why it failed, whether it was re-driven."""
    from ops import tools as ops

    settings = _settings()
    letters = asyncio.run(ops.dead_letters(settings.kafka_bootstrap_servers, settings.database_url,
                                           settings.topic(topic)))
    table = Table("partition", "offset", "key", "from", "field", "reason", "consumer", "re-driven",
                  title=f"{settings.topic(topic)}: {len(letters)} dead letters")
    for letter in letters[-limit:]:
        origin = letter.origin
        where = f"{origin.topic}/{origin.partition}/{origin.offset}" if origin else "?"
        table.add_row(str(letter.partition), str(letter.offset), (letter.key or b"").decode(errors="replace"), where,
                      origin.field if origin else "", (origin.reason if origin else "")[:80],
                      origin.consumer if origin else "", "yes" if letter.redriven else "no")
    console.print(table)


@dlq_app.command("redrive")
def dlq_redrive(
    topic: str = typer.Option(..., help="Dead-letter topic, e.g. spin.events.dlq (the deployment prefix is added)."),
    offset: Optional[list[int]] = typer.Option(None, help="Only these DLQ offsets (repeatable)."),
    force: bool = typer.Option(False, help="Re-drive records that still do not decode."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be re-driven, change nothing."),
) -> None:
    """After a fix: put each dead letter back on its source topic once (marked; re-runs skip it)."""
    from ops import tools as ops

    settings = _settings()
    with _bar(None, "re-drive") as bar:
        task = bar.add_task("re-drive", total=None)
        summary = asyncio.run(ops.redrive(settings.kafka_bootstrap_servers, settings.database_url,
                                          settings.topic(topic), dry_run=dry_run, force=force,
                                          only_offsets=set(offset) if offset else None,
                                          tick=lambda n: bar.advance(task, n)))
    _summary(f"re-drive {settings.topic(topic)}", summary, dry_run)


@app.command("reset-group")
def reset_group(
    group: str = typer.Option(..., help="Consumer group id (as `settings.group(...)` names it)."),
    topic: list[str] = typer.Option(..., help="Contract topic(s) to reset (the deployment prefix is added)."),
    to: str = typer.Option(..., help="earliest | latest | offset:N | time:<ISO 8601>"),
    yes: bool = typer.Option(False, "--yes", help="Do not ask for confirmation (scripts)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan, change nothing."),
) -> None:
    """Reset a consumer group's committed offsets; refused while the group has active members."""
    from ops import tools as ops
    from ops.rules import refusal_of_group_reset

    settings = _settings()
    plan = ops.plan_group_reset(settings.kafka_bootstrap_servers, group, [settings.topic(t) for t in topic], to)
    table = Table("topic", "partition", "committed", "target", title=f"reset {group} (state {plan.state})")
    for (name, partition), (now, target) in sorted(plan.moves.items()):
        table.add_row(name, str(partition), "-" if now is None else str(now), str(target))
    console.print(table)
    if reason := refusal_of_group_reset(plan.state, plan.members):
        console.print(f"[red]refused:[/red] {reason}")
        raise typer.Exit(2)
    if dry_run:
        console.print("dry run: nothing changed")
        return
    if not yes and not typer.confirm(f"reset {len(plan.moves)} partitions of group {group}?", default=False):
        console.print("aborted: nothing changed")
        raise typer.Exit(1)
    with _bar(len(plan.moves), "reset") as bar:
        task = bar.add_task("reset", total=len(plan.moves))
        ops.apply_group_reset(settings.kafka_bootstrap_servers, group, plan)
        bar.advance(task, len(plan.moves))
    console.print(f"reset {len(plan.moves)} partitions of {group} to {to}")
