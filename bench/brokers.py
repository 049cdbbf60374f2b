"""Three brokers against one: spins on a local KRaft cluster, a broker and a service instance killed midway, audited."""

# `reelstream bench brokers` starts (in its own state dir and ports, never the shared broker) a one-broker cluster and
# a three-broker one (small heaps; topics with replication factor 3 and min.insync.replicas 2 on the latter; acks=all
# producers everywhere), runs two instances of wallet, jackpot and spin on each, measures the same burst of spins on
# both, then on the three brokers sends --spins more and SIGKILLs one broker and one spin instance when half are
# answered. Every request must get its answer, and `reelstream audit` over the topics must find 0 discrepancies.

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import shutil
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from deploy.local import cluster
from deploy.local.paths import InfraPaths, default_paths
from bench.spin_load import LoadGenerator
from bench.spin_platform import deposit_commands, spin_requests
from shared.records import stand_in_batch
from reelstream.processes import ServiceProcess, spawn, stop_all
from shared.config import load_settings
from shared.session import issue_token
from shared.topic_admin import ensure_topics

INSTANCES = ("wallet", "jackpot", "spin")
# This run's session key (the clusters are the bench's own: no key of the local platform's env file applies).
SESSION_SECRET = os.environ.get("REELSTREAM_SESSION_SECRET") or secrets.token_urlsafe(32)
PLAYERS = 64
ANSWER_TIMEOUT_S = 300


def start_services(
    bootstrap: str, prefix: str, state: Path, instances: int, extra: Mapping[str, str] | None = None
) -> dict[str, list[ServiceProcess]]:
    """`instances` of each service against the cluster (`extra`: more of their environment, a test hook)."""
    env = {
        "REELSTREAM_TOPIC_PREFIX": prefix,
        "KAFKA_BOOTSTRAP_SERVERS": bootstrap,
        "REELSTREAM_LOG_LEVEL": "WARNING",
        "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
        "REELSTREAM_HTTP_PORT": "0",
        "REELSTREAM_SESSION_SECRET": SESSION_SECRET,
        "REELSTREAM_WALLET_DATADIR": str(state / "wallet-data"),
        **(extra or {}),
    }
    started = {
        name: [
            spawn(
                name,
                env={**env, "REELSTREAM_STATE_DIR": str(state / f"{name}-{n}")},
                log_dir=state / "logs" / f"{name}-{n}",
            )
            for n in range(instances)
        ]
        for name in INSTANCES
    }
    for processes in started.values():
        for process in processes:
            process.wait_ready(240)
    return started


async def drive(bootstrap: str, prefix: str, throughput_spins: int, chaos_spins: int, chaos) -> dict:
    """A clean burst (throughput), then, when chaos_spins, a second burst with `chaos()` called at half of it."""
    load = LoadGenerator(bootstrap, f"{prefix}spin.requests", f"{prefix}spin.events")
    await load.start()
    try:
        players = [f"brokers-{n:03d}" for n in range(PLAYERS)]
        expires_ms = time.time_ns() // 1_000_000 + 3_600_000
        tokens = {p: issue_token(SESSION_SECRET, p, expires_ms) for p in players}
        deposits = deposit_commands(players)  # signed as the cashier's where the environment has signing keys
        signed = stand_in_batch([("wallet.commands", key, value) for key, value in deposits], "cashier")
        await load.send_all(f"{prefix}wallet.commands", deposits, signed)
        await load.burst(spin_requests(players, tokens, 50), ANSWER_TIMEOUT_S)  # warm-up: JIT, groups, producers
        result = {"throughput": await load.burst(spin_requests(players, tokens, throughput_spins), ANSWER_TIMEOUT_S)}
        if chaos_spins:
            batch = spin_requests(players, tokens, chaos_spins)
            burst = asyncio.create_task(load.burst(batch, ANSWER_TIMEOUT_S))
            ids = [rid for rid, _, _ in batch]
            while sum(1 for rid in ids if rid in load.answers.at) < chaos_spins // 2 and not burst.done():
                await asyncio.sleep(0.05)
            result["killed"] = await asyncio.to_thread(chaos)
            result["chaos"] = await burst
        result["rejections"] = dict(load.answers.codes)
        return result
    finally:
        await load.stop()


def audit(bootstrap: str, prefix: str, out: Path, at_rest: bool = False) -> dict:
    """The audit of the run's topics (`at_rest`: nothing in flight, so a debit still open is a finding) and the
    wagers debited and neither settled nor refunded."""
    from services.audit.adapters.runner import audit_platform
    from services.audit.core.scope import Scope

    settings = load_settings({"KAFKA_BOOTSTRAP_SERVERS": bootstrap, "REELSTREAM_TOPIC_PREFIX": prefix})
    run = audit_platform(settings, Scope(None, None, None, None), out, False, at_rest=at_rest)
    wagers = run.result.ledger.wagers.values()
    return {
        "discrepancies": len(run.discrepancies),
        "open_wagers": sum(1 for wager in wagers if wager.settlement is None and wager.refund is None),
        "spins_rederived": run.result.counts["spins_rederived"],
        "findings": [f"{f.check}: {f.subject}: {f.detail}" for f in run.discrepancies[:20]],
    }


def run_cluster(
    paths: InfraPaths, brokers: int, base_port: int, throughput_spins: int, chaos_spins: int, instances: int, echo
) -> dict:
    nodes = cluster.cluster(brokers, base_port)
    shutil.rmtree(paths.state / "kafka-cluster", ignore_errors=True)  # a proof starts from empty logs
    cluster.up(paths, nodes, echo)
    services: dict[str, list[ServiceProcess]] = {}
    try:
        prefix = f"brk{uuid.uuid4().hex[:10]}."
        ensure_topics(nodes.bootstrap, prefix=prefix, replication_factor=min(3, brokers))
        services = start_services(nodes.bootstrap, prefix, paths.state, instances)

        def chaos() -> dict:
            victim = nodes.nodes[1]
            cluster.kill_node(paths, victim)
            services["spin"][0].kill()
            echo(f"killed kafka node {victim.node_id} and spin instance 0 (pid {services['spin'][0].process.pid})")
            return {"broker": victim.node_id, "service": "spin/0"}

        driven = asyncio.run(drive(nodes.bootstrap, prefix, throughput_spins, chaos_spins, chaos))
        stop_services(services)
        audited = audit(nodes.bootstrap, prefix, paths.state / f"audit-{brokers}")
        return {"brokers": brokers, "instances_per_service": instances, **driven, "audit": audited}
    finally:
        tear_down(paths, nodes, services, echo)


def stop_services(services: dict[str, list[ServiceProcess]]) -> None:
    stop_all(process for processes in services.values() for process in processes)


def tear_down(paths: InfraPaths, nodes: cluster.Cluster, services: dict[str, list[ServiceProcess]], echo) -> None:
    """Stop the services, then the cluster, and drop its logs: a proof leaves nothing running and nothing behind."""
    stop_services(services)
    cluster.down(paths, nodes, echo)
    shutil.rmtree(paths.state / "kafka-cluster", ignore_errors=True)


def command(
    spins: int = typer.Option(2000, min=10, help="Spins of the fault run on three brokers."),
    throughput_spins: int = typer.Option(1000, min=10, help="Spins of the clean burst measured on 1 and 3 brokers."),
    instances: int = typer.Option(2, min=1, max=6, help="Instances of each service."),
    base_port: int = typer.Option(
        29092, help="First broker port of the three-broker cluster (the one-broker cluster uses base + 100)."
    ),
    out: Path = typer.Option(Path("bench-results/three-brokers.json"), help="Where to write the JSON results."),
) -> None:
    """Spins on 1 broker vs 3 brokers, then a broker and a spin instance killed mid-run on 3; audit 0 discrepancies."""
    console = Console(highlight=False)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)  # the killed broker's refused connections, by the hundred
    base = default_paths()
    if "REELSTREAM_STATE_DIR" not in os.environ:
        base = InfraPaths(state=base.state / "three-brokers", cache=base.cache)
    results = {}
    for brokers, port, chaos_spins in ((1, base_port + 100, 0), (3, base_port, spins)):
        paths = InfraPaths(state=base.state / f"brokers-{brokers}", cache=base.cache)
        results[brokers] = run_cluster(
            paths,
            brokers,
            port,
            throughput_spins,
            chaos_spins,
            instances,
            lambda line: console.print(line, markup=False),
        )
    table = Table("measure", "1 broker", "3 brokers")
    one, three = results[1], results[3]
    table.add_row(
        f"settled spins/s, burst of {throughput_spins}",
        str(one["throughput"]["spins_per_s"]),
        str(three["throughput"]["spins_per_s"]),
    )
    table.add_row(
        "answered",
        f"{one['throughput']['answered']}/{throughput_spins}",
        f"{three['throughput']['answered']}/{throughput_spins}",
    )
    table.add_row(
        f"fault run: {spins} spins, broker + spin instance killed",
        "-",
        f"{three['chaos']['answered']}/{spins} answered, {three['chaos']['spins_per_s']} spins/s",
    )
    table.add_row("audit discrepancies", str(one["audit"]["discrepancies"]), str(three["audit"]["discrepancies"]))
    console.print(table)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"1": one, "3": three, "cpus": os.cpu_count()}, indent=2) + "\n")
    failed = [n for n, r in results.items() if r["audit"]["discrepancies"]] + (
        [] if three["chaos"]["answered"] == spins else ["unanswered"]
    )
    if failed or one["throughput"]["answered"] < throughput_spins or three["throughput"]["answered"] < throughput_spins:
        console.print(f"[red]failed: {failed or 'unanswered spins'}[/red]")
        raise typer.Exit(1)
    console.print(f"[green]0 discrepancies; every request answered[/green]; results in {out}")
