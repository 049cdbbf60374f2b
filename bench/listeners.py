"""Secured vs plaintext listener in one run (`reelstream bench spins --compare-plaintext N`): the same spin burst on a
platform connected through the SASL_SSL listener and on one through the plaintext benchmark listener of the same
broker (`reelstream infra up --bench-listener`), interleaved A/B/A/B, medians compared (target secured >= 0.8 x)."""

# Both platforms run the same code with the same signing keys; only the connection differs (TLS and SCRAM, each service
# its own principal, against plaintext as the listener's super user). Both stay up for the whole run, so each burst
# meets an idle twin, not a start-up.

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from bench.spin_load import LoadGenerator
from bench.spin_platform import deposit_commands, spin_requests, start_platform
from reelstream.processes import stop_all
from shared.config import load_settings
from shared.records import stand_in_batch
from shared.session import issue_token
from shared.topic_admin import delete_prefixed, ensure_topics

BENCH_BOOTSTRAP_ENV = "REELSTREAM_KAFKA_BENCH_BOOTSTRAP"
RATIO_TARGET = 0.8
WARM_UP_SPINS = 200
SIDES = ("secured", "plaintext")


def plaintext_overrides(bench_bootstrap: str) -> dict[str, str]:
    """The environment of a client of the plaintext listener: no role file, no client config, PLAINTEXT."""
    return {
        "KAFKA_BOOTSTRAP_SERVERS": bench_bootstrap,
        "REELSTREAM_KAFKA_CLIENTS_DIR": "",
        "REELSTREAM_KAFKA_CLIENT_CONFIG": "",
        "KAFKA_SECURITY_PROTOCOL": "PLAINTEXT",
    }


@contextmanager
def environment(overrides: dict[str, str]) -> Iterator[None]:
    """This process's environment with `overrides` while inside (clients read their security when they are made, and
    spawned services inherit it); restored after."""
    saved = {name: os.environ.get(name) for name in overrides}
    os.environ.update(overrides)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def bench_bootstrap() -> str:
    found = os.environ.get(BENCH_BOOTSTRAP_ENV, "").strip()
    if not found:
        raise typer.BadParameter(
            f"--compare-plaintext needs the plaintext benchmark listener (${BENCH_BOOTSTRAP_ENV}): start the broker "
            "with `reelstream infra up --bench-listener`"
        )
    return found


def command(console: Console, bootstrap: str, spins: int, players: int, rounds: int, out: Path) -> None:
    """`bench spins --compare-plaintext ROUNDS`: the comparison run, printed and written to `out`."""
    plaintext = bench_bootstrap()
    load_before = os.getloadavg()[0]
    comparison = compare(bootstrap, plaintext, spins, players, rounds)
    machine = {"cpus": os.cpu_count(), "load_1min_before": round(load_before, 2)}
    results = {
        "listener_comparison": comparison,
        "machine": {**machine, "load_1min_after": round(os.getloadavg()[0], 2)},
    }
    table = Table("measure", "value")
    for name, value in report_rows(comparison):
        table.add_row(name, value)
    console.print(table)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    console.print(f"wrote {out}", markup=False)


def compare(secured_bootstrap: str, plaintext_bootstrap: str, spins: int, players_count: int, rounds: int) -> dict:
    """`rounds` bursts of `spins` on each side, alternating secured, plaintext, ...; medians and their ratio."""
    prefixes = {side: f"bench{side[0]}{uuid.uuid4().hex[:9]}." for side in SIDES}
    overrides = {"secured": {}, "plaintext": plaintext_overrides(plaintext_bootstrap)}
    bootstraps = {"secured": secured_bootstrap, "plaintext": plaintext_bootstrap}
    services: list = []
    try:
        for side in SIDES:
            ensure_topics(secured_bootstrap, prefix=prefixes[side])
            with environment(overrides[side]):
                log_dir = Path(f"bench-results/spins-logs/{side}")
                services += start_platform(bootstraps[side], prefixes[side], log_dir)
        bursts = asyncio.run(_interleaved(bootstraps, prefixes, overrides, spins, players_count, rounds))
    finally:
        stop_all(services)
        for prefix in prefixes.values():
            delete_prefixed(secured_bootstrap, prefix)
    return summary(bursts)


def summary(bursts: list[dict]) -> dict:
    """Per side: each burst's spins/s in run order and their median; the ratio of the medians against the target."""
    sides = {
        side: {
            "spins_per_s": [b["spins_per_s"] for b in bursts if b["side"] == side],
            "rejected": [b["rejected"] for b in bursts if b["side"] == side],
        }
        for side in SIDES
    }
    for figures in sides.values():
        figures["median_spins_per_s"] = round(statistics.median(figures["spins_per_s"]), 1)
    plaintext = sides["plaintext"]["median_spins_per_s"]
    ratio = round(sides["secured"]["median_spins_per_s"] / plaintext, 3) if plaintext else None
    return {
        **sides,
        "order": [b["side"] for b in bursts],
        "ratio_secured_to_plaintext": ratio,
        "ratio_target": RATIO_TARGET,
        "ratio_ok": ratio is not None and ratio >= RATIO_TARGET,
    }


async def _interleaved(
    bootstraps: dict[str, str],
    prefixes: dict[str, str],
    overrides: dict[str, dict[str, str]],
    spins: int,
    players_count: int,
    rounds: int,
) -> list[dict]:
    settings = load_settings()
    players = [f"bench-{n:04d}" for n in range(players_count)]
    expires_ms = time.time_ns() // 1_000_000 + 3_600_000
    tokens = {p: issue_token(settings.session_secret, p, expires_ms) for p in players}
    loads: dict[str, LoadGenerator] = {}
    try:
        for side in SIDES:
            with environment(overrides[side]):
                loads[side] = LoadGenerator(
                    bootstraps[side], f"{prefixes[side]}spin.requests", f"{prefixes[side]}spin.events"
                )
                await loads[side].start()
            await _funded(loads[side], prefixes[side], players)
            await loads[side].burst(spin_requests(players, tokens, WARM_UP_SPINS))
        bursts = []
        for _ in range(rounds):
            for side in SIDES:
                burst = await loads[side].burst(spin_requests(players, tokens, spins))
                bursts.append({"side": side, **burst})
        return bursts
    finally:
        for load in loads.values():
            await load.stop()


async def _funded(load: LoadGenerator, prefix: str, players: list[str]) -> None:
    """Every player's deposit, signed as the cashier's (as the spins bench does), processed before the first spin."""
    deposits = deposit_commands(players)
    signed = stand_in_batch([("wallet.commands", key, value) for key, value in deposits], "cashier")
    await load.send_all(f"{prefix}wallet.commands", deposits, signed)
    await asyncio.sleep(3)  # the wallet takes them long before the warm-up's debits arrive (same partitions, in order)


def report_rows(comparison: dict) -> list[tuple[str, str]]:
    """The lines `bench spins --compare-plaintext` prints."""
    rows = [(f"{side} listener spins/s (bursts in order; median)", _figures(comparison[side])) for side in SIDES]
    verdict = "ok" if comparison["ratio_ok"] else "MISSED"
    rows.append(
        (
            f"secured ÷ plaintext (target ≥ {comparison['ratio_target']})",
            f"{comparison['ratio_secured_to_plaintext']} ({verdict})",
        )
    )
    rows.append(("burst order", " / ".join(comparison["order"])))
    return rows


def _figures(side: dict) -> str:
    return " / ".join(f"{value:,}" for value in side["spins_per_s"]) + f"; {side['median_spins_per_s']:,}"
