"""`reelstream ops replay|dlq list|dlq redrive|reset-group`: replay ranges, re-drive dead letters, reset groups. Each
shows progress and ends with a summary; `--dry-run` reads and counts but changes nothing."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from reelstream import arguments
from reelstream.output import FORMAT, UNITS, Column, Format, Units, View, emit

app = typer.Typer(no_args_is_help=True)
dlq_app = typer.Typer(no_args_is_help=True)
app.add_typer(dlq_app, name="dlq", help="List and re-drive dead-letter topics (<topic>.dlq).")
console = Console()


def _settings():
    from shared.config import load_settings

    return load_settings()


def _bar(total: int | None, description: str) -> Progress:
    return Progress(
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )


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
    into_topic: Optional[str] = typer.Option(
        None,
        "--into-topic",
        parser=arguments.topic_name,
        metavar="TOPIC",
        help="A NEW topic (live topics are refused).",
    ),
    into_projection: bool = typer.Option(False, "--into-projection", help="Apply to the live Postgres projection."),
    from_offset: Optional[int] = typer.Option(
        None, parser=arguments.offset, metavar="OFFSET", help="First offset (each partition)."
    ),
    to_offset: Optional[int] = typer.Option(
        None, parser=arguments.offset, metavar="OFFSET", help="One past the last offset (each partition)."
    ),
    since: Optional[datetime] = typer.Option(
        None, parser=arguments.moment_now, metavar="TIME", help=f"First broker time: {arguments.TIME_HINT}."
    ),
    until: Optional[datetime] = typer.Option(
        None, parser=arguments.moment_now, metavar="TIME", help="Broker time to stop before (same formats)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Read and count, change nothing, print what would happen."),
) -> None:
    """Replay a topic's range (offsets or time) into a new topic or into the projection — never into a live topic."""
    from ops import tools as ops
    from ops.rules import refusal_of_replay_target

    settings = _settings()
    if (into_topic is None) == (not into_projection):
        raise typer.BadParameter("give exactly one of --into-topic NAME or --into-projection")
    _known_topic(topic, settings)
    if into_topic is not None and (reason := refusal_of_replay_target(into_topic, settings.topic_prefix)):
        console.print(f"[red]refused:[/red] {reason}")
        raise typer.Exit(2)
    source = settings.topic(topic)
    ranges = asyncio.run(
        ops.plan_ranges(
            settings.kafka_bootstrap_servers,
            source,
            from_offset=from_offset,
            to_offset=to_offset,
            since=since,
            until=until,
        )
    )
    plan = Table("partition", "from", "to", "records", title=f"replay {source} → {into_topic or 'projection'}")
    for r in ranges:
        plan.add_row(str(r.partition), str(r.start), str(r.end), f"{r.size:,}")
    console.print(plan)
    total = sum(r.size for r in ranges)
    with _bar(total, "replay") as bar:
        task = bar.add_task("replay", total=total)
        tick = lambda n: bar.advance(task, n)  # noqa: E731
        if into_topic is not None:
            summary = asyncio.run(
                ops.replay_to_topic(
                    settings.kafka_bootstrap_servers, source, ranges, into_topic, dry_run=dry_run, tick=tick
                )
            )
        else:
            summary = asyncio.run(_replay_to_projection(settings, source, ranges, dry_run, tick))
    _summary("replay", summary, dry_run)


async def _replay_to_projection(settings, source: str, ranges, dry_run: bool, tick):
    from ops import tools as ops
    from services.projector.adapters.replay import ProjectionReplay

    async with ProjectionReplay(settings.database_url) as projection:
        return await ops.replay_to_projection(
            settings.kafka_bootstrap_servers, source, ranges, projection, dry_run=dry_run, tick=tick
        )


def _known_topic(topic: str, settings) -> None:
    from shared.topics import ALL_TOPICS

    names = [spec.name for spec in ALL_TOPICS]
    if topic not in names:
        raise typer.BadParameter(f"{topic!r} is not a platform topic; known: {', '.join(names)}", param_hint="--topic")


def _dlq_topics(settings) -> list[str]:
    """The dead-letter topics of this deployment (contract names, `<topic>.dlq`) that exist on the broker."""
    from shared.kafka import admin_client

    admin = admin_client(settings.kafka_bootstrap_servers, client_id="reelstream-ops")
    try:
        existing = admin.list_topics()
    finally:
        admin.close()
    from shared.topics import ALL_TOPICS

    return sorted(spec.name for spec in ALL_TOPICS if spec.kind == "dlq" and settings.topic(spec.name) in existing)


def _dlq_argument(topic: str | None, known: list[str]) -> None:
    if topic is not None and not topic.endswith(".dlq"):
        raise typer.BadParameter(
            f"{topic!r} is not a dead-letter topic (their names end in .dlq); here: {', '.join(known) or 'none'}",
            param_hint="--topic",
        )
    if topic is not None and topic not in known:
        raise typer.BadParameter(
            f"no dead-letter topic {topic!r}; here: {', '.join(known) or 'none'}", param_hint="--topic"
        )


def letter_facts(letter, prefix: str = "") -> dict:
    """Why and where one dead letter failed, from the shared header vocabulary (reason even when no origin)."""
    from shared import dead_letters as dl

    headers = {key: (value or b"").decode(errors="replace") for key, value in letter.headers}
    origin = letter.origin
    return {
        "partition": letter.partition,
        "offset": letter.offset,
        "key": (letter.key or b"").decode(errors="replace"),
        "origin": f"{origin.topic.removeprefix(prefix)}/{origin.partition}/{origin.offset}" if origin else None,
        "code": headers.get(dl.CODE) or None,
        "field": headers.get(dl.FIELD) or None,
        "reason": headers.get(dl.REASON) or "(no reason header)",
        "consumer": headers.get(dl.CONSUMER) or None,
        "redriven": letter.redriven,
    }


DLQ_SUMMARY = [
    Column("topic", "dead-letter topic"),
    Column("letters", "letters", "number"),
    Column("redriven", "re-driven", "number", priority=1),
    Column("codes", "codes (count)", priority=3),
    Column("reasons", "reasons (count)", priority=2),
]
DLQ_LETTERS = [
    Column("partition", "part", "number", priority=2),
    Column("offset", "offset", "number"),
    Column("key", "key", priority=1),
    Column("origin", "from", "code", priority=3),
    Column("code", "code", "code", priority=6),
    Column("field", "field", priority=4),
    Column("reason", "reason"),
    Column("consumer", "consumer", priority=0),
    Column("redriven", "re-driven", "flag", priority=5),
]


@dlq_app.command("list")
def dlq_list(
    topic: Optional[str] = typer.Option(
        None,
        help="Only this dead-letter topic, e.g. spin.requests.dlq, letter by "
        "letter (default: every DLQ, counted by reason).",
    ),
    limit: int = typer.Option(50, min=1, max=100_000, help="With --topic: show at most this many (the newest)."),
    format: Format = FORMAT,
    units: Units = UNITS,
) -> None:
    """Every dead letter: per DLQ the count and reasons, or with --topic each letter, why it failed, if re-driven."""
    from collections import Counter

    from ops import tools as ops

    settings = _settings()
    known = _dlq_topics(settings)
    _dlq_argument(topic, known)
    chosen = [topic] if topic else known
    letters = {
        name: [
            letter_facts(letter, settings.topic_prefix)
            for letter in asyncio.run(
                ops.dead_letters(settings.kafka_bootstrap_servers, settings.database_url, settings.topic(name))
            )
        ]
        for name in chosen
    }
    if topic:
        emit(
            View(
                "dead_letters",
                DLQ_LETTERS,
                letters[topic][-limit:],
                title=f"{topic}: {len(letters[topic])} dead letters",
            ),
            format,
            units,
            console,
        )
        return
    rows = []
    for name, found in letters.items():
        reasons = Counter(letter["reason"] for letter in found)
        codes = Counter(letter["code"] or "(no code)" for letter in found)
        rows.append(
            {
                "topic": name,
                "letters": len(found),
                "redriven": sum(letter["redriven"] for letter in found),
                "codes": "; ".join(f"{code} ({count})" for code, count in codes.most_common(5)),
                "reasons": "; ".join(f"{reason[:60]} ({count})" for reason, count in reasons.most_common(5)),
            }
        )
    emit(View("dead_letter_topics", DLQ_SUMMARY, rows, title="dead-letter topics"), format, units, console)


GROUP_COLUMNS = [
    Column("group", "group", "code"),
    Column("state", "state", priority=3),
    Column("members", "members", "number", priority=2),
    Column("topic", "topic"),
    Column("partition", "part", "number"),
    Column("committed", "committed", "number", priority=1),
    Column("end", "end (stable)", "number", priority=1),
    Column("lag", "lag", "number"),
    Column("member", "member", priority=0),
]


@app.command("groups")
def consumer_groups(
    group: Optional[str] = typer.Option(
        None,
        parser=arguments.group_id,
        metavar="GROUP",
        help="Only this group (default: every group of this deployment).",
    ),
    format: Format = FORMAT,
    units: Units = UNITS,
) -> None:
    """Consumer groups: state, members, and per partition the committed offset and the lag (records a
    read_committed consumer would still read; transaction markers are not records)."""
    from ops.groups import groups

    settings = _settings()
    rows, described = groups(settings.kafka_bootstrap_servers, settings.topic_prefix, group)
    if not described:
        typer.echo(f"no consumer group {group!r}" if group else "no consumer groups", err=True)
        raise typer.Exit(3)
    prefix = settings.topic_prefix
    table = [
        {
            "group": r.group.removeprefix(prefix),
            "state": r.state,
            "members": r.members,
            "topic": r.topic.removeprefix(prefix),
            "partition": r.partition,
            "committed": r.committed,
            "end": r.end,
            "lag": r.lag if r.exact else f"≥{r.lag:,}",
            "member": r.member,
        }
        for r in rows
    ]
    idle = [d["group_id"].removeprefix(prefix) for d in described if d["group_id"] not in {r.group for r in rows}]
    notes = [f"no committed offsets: {', '.join(idle)}"] if idle else []
    title = "consumer groups" + (f" (names under the prefix {prefix!r})" if prefix else "")
    emit(View("partitions", GROUP_COLUMNS, table, title=title, notes=notes), format, units, console)


@dlq_app.command("redrive")
def dlq_redrive(
    topic: str = typer.Option(..., help="Dead-letter topic, e.g. spin.events.dlq (the deployment prefix is added)."),
    offset: Optional[list[int]] = typer.Option(
        None, parser=arguments.offset, metavar="OFFSET", help="Only these DLQ offsets (repeatable)."
    ),
    force: bool = typer.Option(False, help="Re-drive records that still do not decode."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be re-driven, change nothing."),
) -> None:
    """After a fix: put each dead letter back on its source topic once (marked; re-runs skip it)."""
    from ops import tools as ops

    from ops.rules import refusal_of_redrive

    settings = _settings()
    known = _dlq_topics(settings)
    _dlq_argument(topic, known)
    refusal = refusal_of_redrive(topic)
    if refusal is not None:
        raise typer.BadParameter(refusal, param_hint="--topic")
    with _bar(None, "re-drive") as bar:
        task = bar.add_task("re-drive", total=None)
        summary = asyncio.run(
            ops.redrive(
                settings.kafka_bootstrap_servers,
                settings.database_url,
                settings.topic(topic),
                dry_run=dry_run,
                force=force,
                only_offsets=set(offset) if offset else None,
                tick=lambda n: bar.advance(task, n),
            )
        )
    _summary(f"re-drive {settings.topic(topic)}", summary, dry_run)


@app.command("reset-group")
def reset_group(
    group: str = typer.Option(
        ..., parser=arguments.group_id, metavar="GROUP", help="Consumer group id (as `settings.group(...)` names it)."
    ),
    topic: list[str] = typer.Option(..., help="Contract topic(s) to reset (the deployment prefix is added)."),
    to: str = typer.Option(
        ..., parser=arguments.reset_target, metavar="TARGET", help="earliest | latest | offset:N | time:<ISO 8601>"
    ),
    yes: bool = typer.Option(False, "--yes", help="Do not ask for confirmation (scripts)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan, change nothing."),
) -> None:
    """Reset a consumer group's committed offsets; refused while the group has active members."""
    from ops import tools as ops
    from ops.rules import refusal_of_group_reset

    settings = _settings()
    for name in topic:
        _known_topic(name, settings)
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
