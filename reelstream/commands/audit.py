"""`reelstream audit`: reconstruct and verify every cent, pool level and spin from the raw topics; exit 1 on any discrepancy."""
from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import typer
from rich.console import Console

from shared.config import load_settings
from shared.events import epoch_ms

_console = Console(highlight=False, width=None if sys.stdout.isatty() else 160, stderr=False)


def parse_moment(text: str | None) -> int | None:
    """ISO 8601 date or date-time (naive means UTC) as epoch milliseconds."""
    if not text:
        return None
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return epoch_ms(moment)


def app(
    since: str = typer.Option(None, help="Re-derive and report only what happened from this ISO time on (history is folded from the start)."),
    until: str = typer.Option(None, help="Ignore records stored after this ISO time (balance and levels as of then)."),
    player: str = typer.Option(None, help="Only this player's spins and findings."),
    network: str = typer.Option(None, help="Only this jackpot network's findings."),
    out: Path = typer.Option(Path("audit-report"), help="Directory for audit.json, audit.md and the PNG plots."),
    projection: bool = typer.Option(True, help="Compare the Postgres projection row by row (DATABASE_URL)."),
) -> None:
    """Read spin, wallet and jackpot events from the earliest offsets, recompute everything, compare the projection."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from services.audit.adapters.runner import audit_platform
    from services.audit.core.scope import Scope

    scope = Scope(parse_moment(since), parse_moment(until), player, network)
    with Progress(TextColumn("reading topics"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("read", total=None)
        run = audit_platform(load_settings(), scope, out, projection,
                             progress=lambda done, total: bar.update(task, completed=done, total=total))
    counts = run.result.counts
    _console.print(f"read {counts['records']} records ({counts['distinct_events']} distinct events, "
                   f"{counts['redeliveries_collapsed']} redeliveries collapsed); re-derived {counts['spins_rederived']} spins")
    _console.print(f"projection: {run.projection}")
    if run.result.jackpots.in_flight:
        _console.print(f"in flight (not faults): {dict(run.result.jackpots.in_flight)}")
    if not run.discrepancies:
        _console.print("[green]0 discrepancies[/green]")
    else:
        _console.print(f"[red]{len(run.discrepancies)} discrepancies[/red]")
        for finding in run.discrepancies:
            _console.print(f"- {finding.check}: {finding.subject}: {finding.detail} ({finding.where or '-'})")
    if run.report:
        _console.print(f"report: {run.report['markdown']} and {run.report['json']}")
    raise typer.Exit(1 if run.discrepancies else 0)
