"""Spins end to end through wallet, jackpot and spin: settled spins/s, Kafka messages a spin, latency at half load."""

# Starts the three services on fresh uuid-prefixed topics, measures the foundation baselines (bench kafka) in the same
# run, then: (1) a burst of spin requests as fast as the platform settles them, (2) an open-loop load at half that
# rate for the latency percentiles. Targets: spins/s x m >= 0.35 x the bare consume-decode-encode-produce loop's msg/s;
# p99 <= 5 x raw round-trip p99 x sequential hops.

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from bench.kafka import measure_baselines
from bench.spin_load import LoadGenerator
from bench.spin_platform import (
    chain_times,
    cpu_per_spin,
    cpu_s,
    cpu_sources,
    deposit_commands,
    hop_breakdown,
    prefixed_offsets,
    spin_requests,
    start_platform,
)
from reelstream.processes import stop_all
from shared.records import stand_in_batch
from shared.config import load_settings
from shared.session import issue_token
from shared.topic_admin import delete_prefixed, ensure_topics

# client -> spin -> wallet (place) -> spin -> client: a spin without a claim (the benchmark's) crosses four edges, three
# services in sequence; a claim adds a debit first and spin -> jackpot -> spin -> wallet -> spin.
SEQUENTIAL_HOPS = 4


def run(
    bootstrap: str,
    spins: int,
    players_count: int,
    latency_seconds: float,
    baseline_messages: int,
    latency_rate: float | None = None,
    broker_pid: int | None = None,
    curve: tuple[float, ...] = (),
) -> dict:
    baselines = measure_baselines(bootstrap, messages=baseline_messages, repeats=1, latency_samples=200)
    prefix = f"bench{uuid.uuid4().hex[:10]}."
    ensure_topics(bootstrap, prefix=prefix)
    services = start_platform(bootstrap, prefix, Path("bench-results/spins-logs"))
    try:
        measured = asyncio.run(
            _measure(
                bootstrap, prefix, services, spins, players_count, latency_seconds, latency_rate, broker_pid, curve
            )
        )
        return {"baselines": baselines, **measured, "sequential_hops": SEQUENTIAL_HOPS}
    finally:
        stop_all(services)
        delete_prefixed(bootstrap, prefix)


async def _measure(
    bootstrap: str,
    prefix: str,
    services: list,
    spins: int,
    players_count: int,
    latency_seconds: float,
    latency_rate: float | None,
    broker_pid: int | None,
    curve: tuple[float, ...],
) -> dict:
    settings = load_settings()
    load = LoadGenerator(bootstrap, f"{prefix}spin.requests", f"{prefix}spin.events")
    await load.start()
    try:
        players = [f"bench-{n:04d}" for n in range(players_count)]
        expires_ms = time.time_ns() // 1_000_000 + 3_600_000
        tokens = {p: issue_token(settings.session_secret, p, expires_ms) for p in players}
        deposits = deposit_commands(players)  # signed as the cashier's where the environment has signing keys
        signed = stand_in_batch([("wallet.commands", key, value) for key, value in deposits], "cashier")
        await load.send_all(f"{prefix}wallet.commands", deposits, signed)
        # The deposits are processed long before the first spin's debit reaches the wallet (same partitions, in order).
        await asyncio.sleep(3)
        await load.burst(spin_requests(players, tokens, 200))  # warm-up
        before = prefixed_offsets(bootstrap, prefix)
        pids = cpu_sources(services, broker_pid)
        cpu_before = {name: cpu_s(pid) for name, pid in pids.items()}
        burst = await load.burst(spin_requests(players, tokens, spins))
        burst["cpu_ms_per_spin"] = cpu_per_spin(pids, cpu_before, burst["settled"])
        burst["messages_per_spin"] = round((prefixed_offsets(bootstrap, prefix) - before) / max(1, burst["settled"]), 2)
        rate = latency_rate or burst["spins_per_s"] / 2
        paced, due_wall = await _paced_with_cpu(
            load, pids, spin_requests(players, tokens, int(rate * latency_seconds)), rate
        )
        found = chain_times(bootstrap, prefix, {str(rid) for rid in due_wall})
        answers = load.answers
        hops = hop_breakdown(
            found,
            {str(rid): at for rid, at in due_wall.items()},
            {str(rid): answers.wall[rid] for rid in due_wall if rid in answers.wall},
        )
        paced["rate_forced"] = latency_rate is not None  # then not the half-of-the-burst point
        points = []
        for point_rate in curve:  # latency against load: where the p99 budget holds on this machine
            point, _ = await _paced_with_cpu(
                load, pids, spin_requests(players, tokens, int(point_rate * latency_seconds)), point_rate
            )
            points.append(point)
        return {
            "burst": burst,
            "latency_at_half_load": paced,
            "hops_at_half_load": hops,
            "latency_curve": points,
            "rejections": answers.codes,
        }
    finally:
        await load.stop()


async def _paced_with_cpu(load: LoadGenerator, pids: dict[str, int], batch: list, rate: float) -> tuple[dict, dict]:
    """load.paced, plus the CPU ms per spin of each process and the cores busy over that phase."""
    cpu_before = {name: cpu_s(pid) for name, pid in pids.items()}
    paced, due_wall = await load.paced(batch, rate)
    paced["cpu_ms_per_spin"] = cpu_per_spin(pids, cpu_before, paced["settled"])
    paced["cpu_cores"] = round(sum(paced["cpu_ms_per_spin"].values()) * rate / 1000, 2)
    return paced, due_wall


def verdict(results: dict) -> dict:
    loop = results["baselines"]["consume_decode_encode_produce"]["msg_per_s"]
    rtt_p99 = results["baselines"]["aiokafka_round_trip"]["p99_ms"]
    burst, paced = results["burst"], results["latency_at_half_load"]
    throughput_ratio = burst["spins_per_s"] * burst["messages_per_spin"] / loop
    latency_budget_ms = 5 * rtt_p99 * results["sequential_hops"]
    return {
        "throughput_ratio": round(throughput_ratio, 3),
        "throughput_target": 0.35,
        "throughput_ok": throughput_ratio >= 0.35,
        "latency_budget_ms": round(latency_budget_ms, 1),
        "latency_ok": paced["p99_ms"] <= latency_budget_ms,
    }


def command(
    spins: int = typer.Option(3000, min=100, help="Spin requests in the throughput burst."),
    players: int = typer.Option(
        3000,
        min=1,
        help="Distinct Rising Joker players (at least --spins: Rising Joker carries a remainder per player, so a "
        "player's next spin is refused SPIN_IN_PROGRESS until the last is settled).",
    ),
    latency_seconds: float = typer.Option(20.0, min=2, help="Duration of the 50 % load phase."),
    baseline_messages: int = typer.Option(10_000, min=1000, help="Records per baseline throughput run."),
    out: Path = typer.Option(Path("bench-results/spins.json"), help="Where to write the JSON results."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
    compare_plaintext: int = typer.Option(
        0,
        "--compare-plaintext",
        min=0,
        help="Instead: N rounds of the burst on the secured listener and on the plaintext benchmark listener "
        "(`infra up --bench-listener`), interleaved; prints and writes secured ÷ plaintext spins/s (target ≥ 0.8).",
    ),
    latency_rate: float = typer.Option(
        None, min=1, help="Spins/s of the latency phase (default: half the burst rate)."
    ),
    broker_pid: int = typer.Option(
        None,
        help="Also count this broker process's CPU (default: the local broker of `reelstream infra up`, when it runs).",
    ),
    curve: str = typer.Option(
        "",
        help="Also measure latency at these rates, e.g. '10,25,50,100' (spins/s, each for "
        "--latency-seconds): where the p99 budget holds on this machine.",
    ),
    null_sagas: bool = typer.Option(
        False,
        "--null-sagas",
        help="Instead: the real saga against the null six-hop (N6) and three-hop (N3) sagas, interleaved in one run "
        "(burst, p50/p99 at --loads, records and commit markers per spin at the lowest load, hops).",
    ),
    loads: str = typer.Option("50,250", help="With --null-sagas: the fixed loads in spins/s, e.g. '50,250'."),
    load_spins: int = typer.Option(
        10_000, min=10, help="With --null-sagas: spins per saga at each load (split over --rounds)."
    ),
    rounds: int = typer.Option(2, min=1, help="With --null-sagas: turns per saga at each load (interleaving)."),
    idle_seconds: float = typer.Option(
        60.0,
        min=0,
        help="With --null-sagas: first the real platform alone without spins for this long, its services' and the "
        "broker's CPU in percent of a core (idle_core_percent); 0 skips it.",
    ),
) -> None:
    """Spins end to end with all services: spins/s, messages per spin, p50/p99 at half the burst vs baselines."""
    console = Console(highlight=False, width=None if os.isatty(1) else 120)
    bootstrap = bootstrap or load_settings().kafka_bootstrap_servers
    load_before = os.getloadavg()[0]
    if players < spins:
        raise typer.BadParameter(
            f"--players {players} < --spins {spins}: the burst sends every spin at once, and a player's second spin "
            "in flight is refused SPIN_IN_PROGRESS (Rising Joker keeps state per player)"
        )
    if compare_plaintext:
        from bench import listeners

        return listeners.command(console, bootstrap, spins, players, compare_plaintext, out)
    rates = _rates(curve, "--curve")
    if null_sagas:
        from bench import null_compare

        compared = null_compare.command_run(
            bootstrap,
            spins,
            players,
            _rates(loads, "--loads") or (50.0,),
            load_spins,
            rounds,
            broker_pid,
            idle_seconds,
        )
        null_compare.print_results(console, compared)
        _write(out, compared, console)
        return
    results = run(bootstrap, spins, players, latency_seconds, baseline_messages, latency_rate, broker_pid, rates)
    results["verdict"] = verdict(results)
    results["machine"] = {
        "cpus": os.cpu_count(),
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }
    burst, paced, judged = results["burst"], results["latency_at_half_load"], results["verdict"]
    base = results["baselines"]
    table = Table("measure", "value")
    table.add_row("settled spins/s (burst of %d)" % burst["requests"], f"{burst['spins_per_s']:,}")
    table.add_row("Kafka messages per settled spin (m)", str(burst["messages_per_spin"]))
    table.add_row(
        "rejected in the burst / the latency phase (by code)", f"{burst['rejected'] or 0} / {paced['rejected'] or 0}"
    )
    cpu_names = " / ".join(burst["cpu_ms_per_spin"])
    table.add_row(f"CPU ms per spin ({cpu_names})", " / ".join(str(v) for v in burst["cpu_ms_per_spin"].values()))
    table.add_row(
        "bare consume→decode→encode→produce loop msg/s", f"{base['consume_decode_encode_produce']['msg_per_s']:,}"
    )
    table.add_row(
        "spins/s × m ÷ loop msg/s (target ≥ 0.35)",
        f"{judged['throughput_ratio']} ({'ok' if judged['throughput_ok'] else 'MISSED'})",
    )
    table.add_row(f"latency at {paced['rate_per_s']} spins/s: p50 / p99 ms", f"{paced['p50_ms']} / {paced['p99_ms']}")
    table.add_row(
        f"CPU ms per spin in the latency phase ({cpu_names})",
        " / ".join(str(v) for v in paced["cpu_ms_per_spin"].values()),
    )
    table.add_row(f"CPU cores busy in that phase (of {os.cpu_count()})", str(paced["cpu_cores"]))
    table.add_row(
        "p50 ms of the first / last quarter of that phase",
        f"{paced['first_quarter_p50_ms']} / {paced['last_quarter_p50_ms']}",
    )
    table.add_row(
        "raw aiokafka round trip p99 ms × hops × 5",
        f"{base['aiokafka_round_trip']['p99_ms']} × {results['sequential_hops']} × 5 = {judged['latency_budget_ms']}",
    )
    table.add_row("p99 within budget", "ok" if judged["latency_ok"] else "MISSED")
    console.print(table)
    hops = Table(f"hop at {paced['rate_per_s']} spins/s (broker LogAppendTime of each record)", "n", "p50 ms", "p99 ms")
    for hop in results["hops_at_half_load"]:
        hops.add_row(hop["hop"], str(hop["samples"]), str(hop["p50_ms"]), str(hop["p99_ms"]))
    console.print(hops)
    if results["latency_curve"]:
        points = Table(
            "spins/s",
            "p50 ms",
            "p99 ms",
            f"p99 ≤ {judged['latency_budget_ms']} ms",
            f"CPU ms per spin ({cpu_names})",
            "CPU cores",
        )
        for point in results["latency_curve"]:
            points.add_row(
                str(point["rate_per_s"]),
                str(point["p50_ms"]),
                str(point["p99_ms"]),
                "yes" if point["p99_ms"] <= judged["latency_budget_ms"] else "no",
                " / ".join(str(v) for v in point["cpu_ms_per_spin"].values()),
                str(point["cpu_cores"]),
            )
        console.print(points)
    _write(out, results, console)


def _rates(text: str, option: str) -> tuple[float, ...]:
    try:
        return tuple(float(rate) for rate in text.split(",") if rate.strip())
    except ValueError:
        raise typer.BadParameter(f"{option} takes spins/s separated by commas, e.g. 10,25,50; got {text!r}") from None


def _write(out: Path, results: dict, console: Console) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    console.print(f"wrote {out}", markup=False)
