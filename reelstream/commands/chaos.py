"""`reelstream chaos`: a throwaway platform under spins, kills, a broker restart and a PostgreSQL stop, then the
audit; exit 1 unless every request has one answer and the audit finds 0 discrepancies, 2 when nothing was lost but
an answer gap after a kill outlasted the limit (reelstream/chaos/run.py)."""

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
    )
    report = run_chaos(plan, out, echo=typer.echo)
    gaps = report.gaps("kill")
    typer.echo(
        f"{['passed', 'FAILED', 'nothing lost, limit missed'][exit_code(report)]}: {report.requests} requests, "
        f"{report.settled} settled, "
        f"{report.rejected} rejected, {len(report.faults)} faults, {report.restarts} restarts, "
        f"{len(report.discrepancies)} discrepancies; {report.spins_per_s} spins/s; answer gap after a kill p50 "
        f"{gaps['p50_s']} s, max {gaps['max_s']} s (limit {'met' if report.kill_gaps_within_limit else 'NOT met'}), "
        f"after the broker restart {report.gaps('broker restart')['max_s']} s; report in {out / 'chaos.md'}"
    )
    raise typer.Exit(exit_code(report))


def exit_code(report) -> int:
    """0: nothing lost and every kill answered again within the limit; 1: something lost (or not proven); 2: nothing
    lost, the limit missed."""
    if not report.passed:
        return 1
    return 0 if report.kill_gaps_within_limit else 2
