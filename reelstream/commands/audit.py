"""`reelstream audit`: reconstruct and verify every cent, pool level and spin from the raw topics; exit 1 on any
discrepancy. Writes audit.json, audit.md and a self-contained audit.html (default under .reelstream/audit/)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer
from rich.console import Console

from reelstream import arguments
from shared.config import audit_dir, load_settings

_console = Console(highlight=False)


def app(
    since: datetime = typer.Option(
        None,
        parser=arguments.moment_now,
        metavar="TIME",
        help=f"Re-derive and report only what happened from then on: {arguments.TIME_HINT}.",
    ),
    until: datetime = typer.Option(
        None,
        parser=arguments.moment_now,
        metavar="TIME",
        help="Ignore records stored after this time (balance and levels as of then).",
    ),
    player: str = typer.Option(
        None, parser=arguments.player_id, metavar="PLAYER_ID", help="Only this player's spins and findings."
    ),
    network: str = typer.Option(
        None, parser=arguments.id_prefix, metavar="NETWORK_ID", help="Only this jackpot network's findings."
    ),
    out: Path = typer.Option(
        None, parser=arguments.output_dir, metavar="DIR", help="Directory for the report (default .reelstream/audit/)."
    ),
    projection: bool = typer.Option(True, help="Compare the Postgres projection row by row (DATABASE_URL)."),
    since_checkpoint: bool = typer.Option(
        False, "--since-checkpoint", help="Check only what came after the last audit's signed checkpoint."
    ),
    checkpoint: Path = typer.Option(
        None,
        parser=arguments.output_file,
        metavar="FILE",
        help="The checkpoint file (default .reelstream/audit/checkpoints/<prefix>.json).",
    ),
    write_checkpoint: bool = typer.Option(True, help="Leave a checkpoint for the next --since-checkpoint (unscoped)."),
    at_rest: bool = typer.Option(
        False, "--at-rest", help="Nothing is in flight (a run's end): every open debit is a finding, whatever its age."
    ),
) -> None:
    """Read spin, wallet and jackpot events from the earliest offsets (or from the last checkpoint), recompute
    everything, compare the projection."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from services.audit.adapters import checkpoints
    from services.audit.adapters.runner import Checkpointing, audit_platform
    from services.audit.core.scope import Scope
    from shared.events import epoch_ms

    scope = Scope(epoch_ms(since) if since else None, epoch_ms(until) if until else None, player, network)
    if since_checkpoint and scope != Scope():
        raise typer.BadParameter(
            "--since-checkpoint audits everything after the checkpoint: no --since/--until/--player/--network",
            param_hint="--since-checkpoint",
        )
    settings = load_settings()
    checkpointing = Checkpointing(
        checkpoint or checkpoints.default_path(settings.topic_prefix),
        checkpoints.key_dir(),
        resume=since_checkpoint,
        write=write_checkpoint,
    )
    columns = (
        SpinnerColumn(finished_text="✓"),
        TextColumn("{task.description:<24}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(phase: str, done: int, total: int | None) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        try:
            run = audit_platform(
                settings,
                scope,
                out or audit_dir(),
                projection,
                progress=progress,
                checkpointing=checkpointing,
                at_rest=at_rest,
            )
        except checkpoints.CheckpointError as error:
            typer.echo(f"reelstream audit: error: {error}", err=True)
            raise typer.Exit(3 if "no checkpoint at" in str(error) else 1) from None
    _summary(run)
    raise typer.Exit(1 if run.discrepancies else 0)


def _summary(run) -> None:
    counts = run.result.counts
    if run.resumed is not None:
        _console.print(
            f"from checkpoint {run.resumed.digest[:16]} (signed by {run.resumed.key_id}): "
            f"{run.result.totals['records']:,} records audited in all",
            markup=False,
        )
    _console.print(
        f"read {counts['records']:,} records ({counts['distinct_events']:,} distinct events, "
        f"{counts['redeliveries_collapsed']:,} redeliveries collapsed); "
        f"re-derived {counts['spins_rederived']:,} spins",
        markup=False,
    )
    _console.print(f"projection: {run.projection}", markup=False)
    if run.result.jackpots.in_flight:
        in_flight = ", ".join(f"{k}: {v}" for k, v in run.result.jackpots.in_flight.items())
        _console.print(f"in flight (not faults): {in_flight}", markup=False)
    if not run.discrepancies:
        _console.print("[green]0 discrepancies[/green]")
    else:
        _console.print(f"[red]{len(run.discrepancies)} discrepancies[/red]")
        for finding in run.discrepancies:
            _console.print(
                f"- {finding.check}: {finding.subject}: {finding.detail} ({finding.where or '-'})", markup=False
            )
    if run.checkpoint:
        _console.print(f"checkpoint: {run.checkpoint} ({run.checkpoint_digest[:16]})", markup=False)
    if run.report:
        _console.print(
            f"report: {run.report['html']} (also {run.report['markdown'].name}, {run.report['json'].name})",
            markup=False,
        )
