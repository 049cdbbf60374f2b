"""Seamless against ledger latency in one run, the reference wallet at a fixed latency a call: issue 47's criterion."""

# One throwaway deployment (reelstream/chaos/seamless_faults.seamless_setup): the wallet, jackpot, spin and seamless
# saga services, and the reference wallet answering every call after --wallet-latency-ms. One open-loop load
# (bench/spin_load.py) alternates a ledger operator's and a seamless operator's Rising Joker spins, each mode at --rate;
# a spin's latency runs from its due instant to its answer read. The wallet times each call it answers itself
# (GET /_admin/timings); the commits are the spin's, the wallet's and the saga's own, from their /metrics. The
# criterion and the answer's path in each mode: bench/seamless_bound.py.

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
import urllib.request
import uuid
from datetime import datetime, timezone
from pathlib import Path

import typer

from bench import loop_timings
from bench.kafka import percentiles_ms
from bench.null_compare import answers_per_request
from bench.seamless_bound import LEDGER_PATH, SEAMLESS_PATH, AnswerPath, Measured, markdown, run_problems, verdict
from bench.spin_load import LoadGenerator
from bench.spin_platform import CHAIN, chain_times, deposit_commands, hop_breakdown, spin_requests
from reelstream.chaos.seamless_faults import LEDGER_OPERATOR, OPERATOR, START_MINOR, Platform, seamless_setup
from shared.operators import SeamlessWallet
from shared.records import stand_in_batch
from shared.session import issue_token

# The records of a seamless spin, in causal order, whose broker LogAppendTimes give its hops (the ledger's: CHAIN). The
# outbox's records of a call's answer carry the call's id, not the spin's, so a hop after a decision holds the outbox's
# wait, the call, the answer's write and the loop's read of it.
SEAMLESS_CHAIN = (
    ("spin.requests", "spin.requested.v1"),
    ("wallet.internal", "wallet.place-wager.v1"),
    ("wallet.seamless", "wallet.seamless-bet-decided.v1"),
    ("wallet.seamless", "wallet.seamless-bet-accepted.v1"),
    ("wallet.seamless", "wallet.seamless-win-acknowledged.v1"),
    ("spin.events", "spin.settled.v1"),
)
SERVICES = ("wallet", "jackpot", "spin", "seamless-saga")
OPERATOR_CLOCKS: dict[str, int] = {}  # the operators file's defaults (a call's timeout, a bet's deadline), as deployed
PATH_SERVICES = ("spin", "wallet", "seamless-saga")  # the loops whose commits are on an answer's path
RESULT = "seamless-latency"
DEPOSIT_SETTLE_S = 3.0  # the ledger players' deposits are in before their first spin's wager reaches the wallet


class UnmeasuredRun(RuntimeError):
    """A run without one of the bound's figures (no spin settled, no wallet call or no commit in its phase)."""


def run(rate: float, seconds: float, warmup_s: float, players: int, latency_ms: int, echo=print) -> dict:
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    load_before, began = os.getloadavg(), time.monotonic()
    said, echo = echo, lambda text: said(f"[{time.monotonic() - began:6.1f} s] bench seamless: {text}")
    with seamless_setup("bseamless", clocks=OPERATOR_CLOCKS) as setup:
        names = {mode: [f"{mode}-{n:04d}" for n in range(players)] for mode in ("ledger", "seamless")}
        wallet_players = [(player, START_MINOR, "EUR") for player in names["seamless"]]
        argv = setup.wallet_argv(wallet_players, ("--latency-ms", str(latency_ms)))
        platform = Platform(setup.env, setup.work_dir / "logs", argv, services=SERVICES)
        try:
            echo(f"starting the reference wallet ({latency_ms} ms a call) and {', '.join(SERVICES)}")
            platform.start()
            measured = asyncio.run(_measure(setup, platform, names, rate, seconds, warmup_s, echo))
        finally:
            platform.stop()
    plan = {"rate_per_mode_per_s": rate, "seconds": seconds, "warmup_s": warmup_s, "players_per_mode": players}
    plan |= {"wallet_latency_ms": latency_ms, "game": "rising-joker", "stake_minor": 100}
    plan |= {"ledger_operator": LEDGER_OPERATOR, "seamless_operator": OPERATOR, "services": list(SERVICES)}
    clocks = {name: getattr(SeamlessWallet, name) for name in ("call_timeout_ms", "bet_timeout_ms", "win_retry_s")}
    plan["seamless_wallet_clocks"] = clocks | OPERATOR_CLOCKS
    document = {"plan": plan, "started_at": started_at, **measured}
    document["paths"] = {path.mode: _path(path) for path in (LEDGER_PATH, SEAMLESS_PATH)}
    document["problems"] = run_problems(measured["modes"], measured["answers"])
    figures = {
        "ledger_p99_ms": measured["modes"]["ledger"]["p99_ms"],
        "seamless_p99_ms": measured["modes"]["seamless"]["p99_ms"],
        "wallet_call_p99_ms": measured["wallet_calls"]["p99_ms"],
        "commit_p99_ms": measured["commits"]["p99_ms"],
    }
    unmeasured = sorted(name for name, value in figures.items() if value is None)
    if unmeasured:
        raise UnmeasuredRun(
            f"the run measured no {', '.join(unmeasured)} (nothing settled, called or committed in its phase): "
            "there is no bound to judge; the services' logs say why"
        )
    document["verdict"] = verdict(Measured(**figures))
    document["machine"] = {
        "cpus": os.cpu_count(),
        "load_before_1_5_15min": [round(x, 2) for x in load_before],
        "load_after_1_5_15min": [round(x, 2) for x in os.getloadavg()],
    }
    return document


async def _measure(setup, platform: Platform, names: dict, rate: float, seconds: float, warmup_s: float, echo) -> dict:
    settings = setup.deployment.settings
    bootstrap, prefix = settings.kafka_bootstrap_servers, settings.topic_prefix
    load = LoadGenerator(bootstrap, f"{prefix}spin.requests", f"{prefix}spin.events")
    await load.start()
    try:
        deposits = deposit_commands(names["ledger"])
        signed = stand_in_batch([("wallet.commands", key, value) for key, value in deposits], "cashier")
        await load.send_all(f"{prefix}wallet.commands", deposits, signed)
        await asyncio.sleep(DEPOSIT_SETTLE_S)
        echo(f"ready; {len(names['ledger'])} ledger players' deposits sent, warm-up for {warmup_s} s")
        expires_ms = time.time_ns() // 1_000_000 + 3_600_000
        operator = {"ledger": LEDGER_OPERATOR, "seamless": OPERATOR}
        tokens = {
            player: issue_token(setup.ring, player, expires_ms, operator_id=operator[mode])
            for mode, players in names.items()
            for player in players
        }
        sent: list[uuid.UUID] = []
        warmup = _alternating(names, tokens, int(rate * warmup_s))
        if warmup:  # the pacing has no percentiles of nothing
            _, warm_due = await load.paced(warmup, 2 * rate)
            sent += list(warm_due)
        urls = {name: url for name, url in _metrics_urls(platform).items() if name in PATH_SERVICES}
        missing = set(PATH_SERVICES) - set(urls)
        assert not missing, f"no /metrics of {sorted(missing)}: their commits cannot be measured"
        before = {name: loop_timings.scrape(url) for name, url in urls.items()}
        position = _wallet_timings(setup.url, 0)["next_since"]
        batch = _alternating(names, tokens, int(rate * seconds))
        echo(f"measuring for {seconds} s at {rate} spins/s of each mode")
        paced, due_wall = await load.paced(batch, 2 * rate)
        sent += list(due_wall)
        grown = {name: loop_timings.grown(before[name], loop_timings.scrape(url)) for name, url in urls.items()}
        timings = _wallet_timings(setup.url, position)
        echo("answered; counting the answers on spin.events")
    finally:
        await load.stop()
    mode_of = {rid: ("ledger" if i % 2 == 0 else "seamless") for i, (rid, _, _) in enumerate(batch)}
    return {
        "phase": {key: paced[key] for key in ("rate_per_s", "requests", "answered", "send_lag_p99_ms")},
        "modes": {mode: _mode_figures(load, due_wall, mode_of, mode) for mode in ("ledger", "seamless")},
        "wallet_calls": _call_figures(timings["durations_us"], timings["dropped"]),
        "commits": _commit_figures(grown),
        "answers": answers_per_request(bootstrap, prefix, sent),
        "hops": {
            mode: _hops(bootstrap, prefix, load, due_wall, [rid for rid, of in mode_of.items() if of == mode], chain)
            for mode, chain in (("ledger", CHAIN), ("seamless", SEAMLESS_CHAIN))
        },
    }


def _hops(bootstrap: str, prefix: str, load: LoadGenerator, due_wall: dict, ids: list, chain: tuple) -> list[dict]:
    """p50/p99 of each hop of a mode's settled spins, from the broker's append times of their records."""
    found = chain_times(bootstrap, prefix, {str(rid) for rid in ids}, chain=chain)
    answered = {str(rid): load.answers.wall[rid] for rid in ids if rid in load.answers.wall}
    return hop_breakdown(found, {str(rid): due_wall[rid] for rid in ids}, answered, chain=chain)


def _alternating(names: dict, tokens: dict, per_mode: int) -> list:
    """`per_mode` spins of each mode, ledger and seamless in turn, so both meet the same moments of the run."""
    ledger = spin_requests(names["ledger"], tokens, per_mode)
    seamless = spin_requests(names["seamless"], tokens, per_mode)
    return [request for pair in zip(ledger, seamless) for request in pair]


def _mode_figures(load: LoadGenerator, due_wall: dict, mode_of: dict, mode: str) -> dict:
    """A mode's answers: settled, refused by code, and the settled spins' latency from due instant to answer read."""
    ids = [rid for rid, of in mode_of.items() if of == mode]
    answers = load.answers
    took = [answers.wall[rid] - due_wall[rid] for rid in ids if rid in answers.wall and rid not in answers.refused]
    figures = {"requests": len(ids), "answered": sum(1 for rid in ids if rid in answers.at), **answers.tally(ids)}
    empty = {"p50_ms": None, "p99_ms": None, "max_ms": None}
    return figures | (percentiles_ms(took) if took else empty)


def _call_figures(durations_us: list[int], dropped: int) -> dict:
    """The wallet's own time to answer each call of the phase (its handler's start to its answer), in ms."""
    durations_s = [us / 1_000_000 for us in durations_us]
    if not durations_s:
        return {"calls": 0, "dropped": dropped, "p50_ms": None, "p99_ms": None, "max_ms": None, "measured_by": "wallet"}
    return {"calls": len(durations_s), "dropped": dropped, **percentiles_ms(durations_s), "measured_by": "wallet"}


def _commit_figures(grown: dict) -> dict:
    """The commits of the path's loops during the phase (their histograms' growth): p99 of all, and each loop's."""
    total: dict = {}
    for histograms in grown.values():
        total = loop_timings.added(total, {"commit": histograms["commit"]} if "commit" in histograms else {})
    buckets = total.get("commit", {}).get("buckets", {})
    p99_s = loop_timings.quantile(0.99, buckets)
    return {
        "p99_ms": None if p99_s is None else round(p99_s * 1000, 1),
        "commits": int(max(buckets.values(), default=0)),
        "by_service": {name: loop_timings.summary(histograms)["commit"] for name, histograms in grown.items()},
        "measured_by": "each service's reelstream_transaction_commit_seconds (first write to commit acknowledged)",
    }


def _metrics_urls(platform: Platform) -> dict[str, str]:
    by_pid = loop_timings.urls_by_pid(process.process.pid for process in platform.processes.values())
    return {name: by_pid[p.process.pid] for name, p in platform.processes.items() if p.process.pid in by_pid}


def _wallet_timings(url: str, since: int) -> dict:
    with urllib.request.urlopen(f"{url}/_admin/timings?since={since}", timeout=10) as answer:  # noqa: S310 - ours
        return json.loads(answer.read())


def _path(path: AnswerPath) -> dict:
    return dataclasses.asdict(path)


def command(
    rate: float = typer.Option(50.0, min=1, help="Spins/s of EACH mode (ledger and seamless), side by side."),
    seconds: float = typer.Option(60.0, min=1, help="The measured phase's length."),
    warmup_seconds: float = typer.Option(10.0, min=0, help="A first phase at the same rates, not measured."),
    players: int = typer.Option(
        500, min=1, help="Players per mode: each spins every players ÷ rate s; a second spin in flight is refused."
    ),
    wallet_latency_ms: int = typer.Option(20, min=0, help="The reference wallet's latency a call."),
    out: Path = typer.Option(Path("docs/results/seamless"), help="Folder for seamless-latency.json and .md."),
    check: bool = typer.Option(True, help="Exit 1 when the criterion fails or the run is not valid (its problems)."),
) -> None:
    """Seamless against ledger latency in one run (issue 47): p50/p99 per mode, the wallet's p99 a call, the
    commit p99, the answer's path and the bound; PASS or FAIL."""
    try:
        document = run(rate, seconds, warmup_seconds, players, wallet_latency_ms)
    except UnmeasuredRun as error:
        typer.echo(f"bench seamless: {error}", err=True)
        raise typer.Exit(1) from error
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{RESULT}.json").write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    (out / f"{RESULT}.md").write_text(markdown(document))
    typer.echo(markdown(document))
    if check and (document["problems"] or not document["verdict"]["passed"]):
        raise typer.Exit(1)
