"""`reelstream topics create|list`: the platform's topics as declared in shared/topics.py, made real on the broker."""
from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.table import Table

from shared.config import load_settings
from shared.kafka import TopicError, admin_client, describe, ensure_topics
from shared.topics import ALL_TOPICS

app = typer.Typer(no_args_is_help=True)
_console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
_SHOWN_CONFIGS = ("cleanup.policy", "retention.ms", "message.timestamp.type", "min.insync.replicas")


@app.command()
def create(
    replication_factor: int = typer.Option(1, min=1, help="1 on the local single node; 3 on a cluster."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
) -> None:
    """Create every missing topic with explicit partitions and configs; report drift of existing ones (exit 2)."""
    admin = admin_client(bootstrap or load_settings().kafka_bootstrap_servers, role="admin")
    try:
        reports = ensure_topics(admin, ALL_TOPICS, replication_factor)
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


@app.command("list")
def list_topics(bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS.")) -> None:
    """Show the declared topics as found on the broker (missing ones are marked)."""
    admin = admin_client(bootstrap or load_settings().kafka_bootstrap_servers, role="admin")
    try:
        existing = set(admin.list_topics())
        found = {t["name"]: t for t in describe(admin, [s.name for s in ALL_TOPICS if s.name in existing])}
    finally:
        admin.close()
    table = Table("topic", "key", "kind", "partitions", *_SHOWN_CONFIGS)
    for spec in ALL_TOPICS:
        topic = found.get(spec.name)
        if topic is None:
            table.add_row(spec.name, spec.key, spec.kind, "missing", *("" for _ in _SHOWN_CONFIGS))
            continue
        table.add_row(spec.name, spec.key, spec.kind, str(topic["partitions"]),
                      *(topic["configs"].get(key, "") for key in _SHOWN_CONFIGS))
    _console.print(table)
