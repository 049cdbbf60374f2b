"""`reelstream topics create|list`: the platform's topics as declared in shared/topics.py, made real on the broker."""

from __future__ import annotations

import typer
from rich.console import Console

from reelstream.output import FORMAT, UNITS, Column, Format, Units, View, emit

from shared.config import load_settings
from shared.kafka import TopicError, admin_client, describe, ensure_topics
from shared.topics import ALL_TOPICS

app = typer.Typer(no_args_is_help=True)
_console = Console(highlight=False)
_SHOWN_CONFIGS = ("cleanup.policy", "retention.ms", "message.timestamp.type", "min.insync.replicas")


@app.command()
def create(
    replication_factor: int = typer.Option(1, min=1, help="1 on the local single node; 3 on a cluster."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
) -> None:
    """Create every missing topic with explicit partitions and configs; report drift of existing ones (exit 2)."""
    settings = load_settings()
    admin = admin_client(bootstrap or settings.kafka_bootstrap_servers, role="admin")
    try:
        reports = ensure_topics(admin, ALL_TOPICS, replication_factor, prefix=settings.topic_prefix)
    except TopicError as error:
        _console.print(f"topics create failed: {error}", markup=False)
        raise typer.Exit(1) from error
    finally:
        admin.close()
    for report in reports:
        line = f"{report.action:8s} {report.name}"
        if report.problems:
            line += ": " + "; ".join(report.problems)
        _console.print(line, markup=False)
    counts = {action: sum(r.action == action for r in reports) for action in ("created", "ok", "drift")}
    _console.print(f"{counts['created']} created, {counts['ok']} as declared, {counts['drift']} drifted", markup=False)
    if counts["drift"]:
        _console.print("drift is reported, never altered automatically: see docs/operations.md (Topics)", markup=False)
        raise typer.Exit(2)


TOPIC_COLUMNS = [
    Column("topic", "topic"),
    Column("key", "key", priority=2),
    Column("kind", "kind", priority=3),
    Column("partitions", "partitions", "number"),
    *(Column(key.replace(".", "_"), key, "code", priority=1) for key in _SHOWN_CONFIGS),
]


@app.command("list")
def list_topics(
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
    format: Format = FORMAT,
    units: Units = UNITS,
) -> None:
    """Show the declared topics (under REELSTREAM_TOPIC_PREFIX) as found on the broker; exit 3 when one is missing."""
    settings = load_settings()
    admin = admin_client(bootstrap or settings.kafka_bootstrap_servers, role="admin")
    try:
        existing = set(admin.list_topics())
        found = {
            t["name"]: t
            for t in describe(admin, [settings.topic(s.name) for s in ALL_TOPICS if settings.topic(s.name) in existing])
        }
    finally:
        admin.close()
    rows = []
    for spec in ALL_TOPICS:
        topic = found.get(settings.topic(spec.name))
        configs = topic["configs"] if topic else {}
        rows.append(
            {
                "topic": spec.name,
                "key": spec.key,
                "kind": spec.kind,
                "partitions": topic["partitions"] if topic else "missing",
                **{key.replace(".", "_"): configs.get(key) for key in _SHOWN_CONFIGS},
            }
        )
    title = "topics" + (f" (under the prefix {settings.topic_prefix!r})" if settings.topic_prefix else "")
    emit(View("topics", TOPIC_COLUMNS, rows, title=title), format, units, _console)
    if any(row["partitions"] == "missing" for row in rows):
        raise typer.Exit(3)
