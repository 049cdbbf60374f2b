"""`reelstream chaos`: a throwaway platform under load and faults, then the audit and the history check; exit 1
unless nothing was lost, no wager is open, the history is linearizable and every fault was measured (run.py)."""

from __future__ import annotations

from pathlib import Path

import typer


def app(
    spins: int = typer.Option(1000, min=1, max=10_000_000, help="Spin requests to answer, across both games."),
    kills: int = typer.Option(5, min=0, max=100_000, help="SIGKILLs of random services during the run."),
    clients: int = typer.Option(4, min=1, max=64, help="Concurrent clients (each with its own players)."),
    concurrency: int = typer.Option(
        1, min=1, max=32, help="Requests in flight per client (workers sharing its connection, each its own players)."
    ),
    spins_per_s: float = typer.Option(
        25.0, min=1.0, max=10_000.0, help="The pace the faults are spread for: over spins / pace seconds."
    ),
    seed: int = typer.Option(7, help="Seed of the fault schedule and of the players' choices."),
    broker_restart: bool = typer.Option(
        True, "--broker-restart/--no-broker-restart", help="Restart the local broker once (local infrastructure only)."
    ),
    postgres_stop_s: float = typer.Option(10.0, min=0, max=600, help="Stop PostgreSQL once for this long (0: never)."),
    fuzz: int = typer.Option(
        0,
        min=0,
        max=10_000_000,
        help="Hostile records to write over every input topic; then "
        "every service is restarted and one normal spin must settle.",
    ),
    load_max_s: float = typer.Option(
        0.0, min=0.0, max=86_400.0, help="No new request after this long (0: until --spins); every fault still lands."
    ),
    checked_players: int = typer.Option(
        4, min=1, max=64, help="Players every worker operates on concurrently; their history is checked by porcupine."
    ),
    standbys: bool = typer.Option(
        True, "--standbys/--no-standbys", help="Warm spares take over a killed service (else a cold start)."
    ),
    out: Path = typer.Option(Path(".reelstream/chaos"), help="Directory for chaos.json, chaos.md and the logs."),
) -> None:
    """Faults during real traffic, then proof that nothing was lost or counted twice."""
    from reelstream.chaos.run import ChaosPlan, run_chaos

    plan = ChaosPlan(
        spins=spins,
        kills=kills,
        clients=clients,
        concurrency=concurrency,
        spins_per_s=spins_per_s,
        load_max_s=load_max_s,
        seed=seed,
        broker_restart=broker_restart,
        postgres_stop_s=postgres_stop_s,
        fuzz=fuzz,
        checked_players=checked_players,
        standbys=standbys,
    )
    report = run_chaos(plan, out, echo=typer.echo)
    takeover, recovery = report.takeover, report.recovery
    typer.echo(
        f"{'passed' if report.passed else 'FAILED'}: {report.requests} requests, {report.settled} settled, "
        f"{report.rejected} rejected, {report.gave_up} given up, {report.unanswered} unanswered, "
        f"{report.open_wagers} open wagers, linearizable {report.linearizable}, {len(report.faults)} faults, "
        f"{report.restarts} restarts, {len(report.discrepancies)} discrepancies; {report.spins_per_s} spins/s; "
        f"takeover p50 {takeover['p50_s']} s, max {takeover['max_s']} s; recovery p50 {recovery['p50_s']} s, "
        f"p99 {recovery['p99_s']} s, max {recovery['max_s']} s; report in {out / 'chaos.md'}"
    )
    raise typer.Exit(exit_code(report))


def exit_code(report) -> int:
    """0: nothing lost, no wager open, the history linearizable, every fault taken over and recovered from; else 1."""
    return 0 if report.passed else 1
