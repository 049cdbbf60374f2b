"""A broker an hour ahead leading the internal command partitions: every wager closed, none refused by age."""

# `reelstream bench skew` starts a local three-broker cluster (its own state dir and ports) whose node 3 runs with its
# wall clock an hour and a minute ahead (libfaketime, deploy/local/clock.py) and leads wallet.internal, jackpot.internal
# and half of spin.requests (bench/skew_plan.py), runs one wallet, jackpot and spin, sends spins of both games (a
# forced jackpot win on each led partition), and checks that every request is answered as the plan expects, that the
# audit at rest finds 0 discrepancies and 0 open wagers, and that no settlement, refund or claim was refused by age.

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import time
import uuid
from dataclasses import asdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import typer
from rich.console import Console

from bench import skew_plan
from bench.brokers import SESSION_SECRET, audit, start_services, stop_services, tear_down
from bench.spin_load import LoadGenerator
from bench.spin_platform import deposit_commands
from deploy.local import cluster
from deploy.local.clock import faketime_library, skewed_environ
from deploy.local.paths import InfraPaths, default_paths
from ops.topic_records import records_to_end
from shared.events import decode_all, encode, envelope
from shared.events.envelope import epoch_ms
from shared.events.jackpot import ClaimRejected, JackpotWon
from shared.events.spin import SpinRequested, SpinSettled
from shared.events.wallet import Deposited
from shared.kafka import admin_client, expected_configs
from shared.records import stand_in_batch
from shared.session import issue_token
from shared.topic_admin import ensure_topics
from shared.topics import ALL_TOPICS, dlq_name, JACKPOT_EVENTS, JACKPOT_INTERNAL, SPIN_EVENTS, WALLET_EVENTS
from shared.topics import WALLET_INTERNAL

SKEWED, OTHERS = 3, (1, 2)
# An hour and a minute: an hour is the de-duplication window itself, so the minute keeps every closing command's age
# past the window whatever the spin's own latency.
SKEW_S = 3660
# The forced win: Diamond Mystery's green tier on a Rising Joker spin of 2 EUR (the spin flow's integration tests).
MYSTERY_SEED = "0000000000000000000000000000000000000000000000000000000000000807"
ANSWER_TIMEOUT_S = 120
PROBE_TOPIC = "skew.clock-probe"
GAMES = (("rising-joker", 100, "EUR"), ("stjernestoev", 200, "DKK"))
_BROKER_TIME = {"message.timestamp.type": "LogAppendTime"}


def create_topics(bootstrap: str, prefix: str) -> None:
    """Every platform topic with the plan's replica lists (the skewed node leads what LED names), then the usual
    check of their configs and the ACLs (none on this plaintext cluster), and the clock probe led by each node."""
    from kafka.admin import NewTopic

    admin = admin_client(bootstrap, client_id="reelstream-skew")
    try:
        topics = [
            NewTopic(
                prefix + spec.name,
                -1,
                -1,
                replica_assignments=skew_plan.assignment(spec.name, spec.partitions, SKEWED, OTHERS),
                topic_configs=expected_configs(spec, 3),
            )
            for spec in ALL_TOPICS
        ]
        probe = {p: [p + 1, *(n for n in (1, 2, 3) if n != p + 1)] for p in range(3)}
        topics.append(NewTopic(PROBE_TOPIC, -1, -1, replica_assignments=probe, topic_configs=_BROKER_TIME))
        admin.create_topics(topics)
    finally:
        admin.close()
    drifted = [r for r in ensure_topics(bootstrap, prefix=prefix, replication_factor=3) if r.action != "ok"]
    if drifted:
        raise RuntimeError(f"topics not as declared: {drifted}")


def clock_ahead_s(bootstrap: str) -> dict[int, float]:
    """Each node's LogAppendTime minus this machine's wall clock, by node id (a record to the probe partition it
    leads, its broker timestamp compared with the wall clock around the send)."""
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    try:
        producer.send(PROBE_TOPIC, b"warm-up", partition=0).get(timeout=30)  # metadata and connection first
        ahead = {}
        for partition in range(3):
            before = time.time()
            metadata = producer.send(PROBE_TOPIC, b"probe", partition=partition).get(timeout=30)
            after = time.time()
            ahead[partition + 1] = round(metadata.timestamp / 1000 - (before + after) / 2, 3)
        return ahead
    finally:
        producer.close()


def requests_for(group: skew_plan.Players, round_: int) -> dict[str, list[tuple[uuid.UUID, bytes, bytes]]]:
    """One spin request per player (a player's next waits for its answer: a second in flight is refused), each group's
    dated by its clients' clock; the game alternates by player and round (one round plays both), and a winner's first
    spin is the Rising Joker spin its armed seed wins."""
    expires_ms = time.time_ns() // 1_000_000 + 3 * 3_600_000 + SKEW_S * 1000  # valid at every clock of the run
    built: dict[str, list[tuple[uuid.UUID, bytes, bytes]]] = {}
    for name, players in (("ahead", group.ahead), ("opening_expired", group.opening_expired)):
        built[name] = []
        for index, player in enumerate(players):
            game, stake, currency = GAMES[(round_ + index) % 2]
            if round_ == 0 and player in group.winners:
                game, stake, currency = GAMES[0][0], 200, GAMES[0][2]
            data = SpinRequested(
                request_id=uuid.uuid4(),
                player_id=player,
                game=game,
                stake_minor=stake,
                currency=currency,
                session_token=issue_token(SESSION_SECRET, player, expires_ms),
            )
            sent_at = datetime.now(timezone.utc) + timedelta(seconds=skew_plan.client_offset_s(player, group, SKEW_S))
            built[name].append((data.request_id, player.encode(), encode(envelope(data, source="bench", time=sent_at))))
    return built


async def drive(bootstrap: str, prefix: str, group: skew_plan.Players, spins_per_player: int) -> dict:
    """Deposits (read back as Deposited before any spin), then every spin; each group's answers by code."""
    load = LoadGenerator(bootstrap, f"{prefix}spin.requests", f"{prefix}spin.events")
    await load.start()
    try:
        money = deposit_commands(list(group.ahead + group.opening_expired), ("EUR", "DKK"))
        signed = stand_in_batch([("wallet.commands", key, value) for key, value in money], "cashier")
        await load.send_all(f"{prefix}wallet.commands", money, signed)
        await asyncio.to_thread(_wait_deposited, bootstrap, prefix + WALLET_EVENTS, len(money))
        sent: dict[str, int] = {}
        answers: dict[str, dict[str, int]] = {}
        for round_ in range(spins_per_player):
            batches = requests_for(group, round_)
            await load.send_all(load.requests_topic, [(k, v) for batch in batches.values() for _, k, v in batch])
            await load.wait_answers([rid for batch in batches.values() for rid, _, _ in batch], ANSWER_TIMEOUT_S)
            for name, batch in batches.items():
                sent[name] = sent.get(name, 0) + len(batch)
                codes = answers.setdefault(name, {})
                for rid in (rid for rid, _, _ in batch if rid in load.answers.at):
                    code = load.answers.refused.get(rid, "SETTLED")
                    codes[code] = codes.get(code, 0) + 1
        return {"sent": sent, "answers": answers}
    finally:
        await load.stop()


def read_all(bootstrap: str, topic: str) -> list:
    """Every committed record of a topic, from its first offset to its end now."""
    return records_to_end(bootstrap, topic)


def _wait_deposited(bootstrap: str, topic: str, count: int, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if sum(1 for r in read_all(bootstrap, topic) if Deposited.TYPE.encode() in r.value) >= count:
            return
        time.sleep(1)
    raise RuntimeError(f"fewer than {count} deposits decided on {topic} in {timeout_s} s")


def refused_by_age(bootstrap: str, prefix: str, winners: tuple[str, ...]) -> dict:
    """What the topics say: closing commands and claims refused by age, opening ones (expected in one group),
    internal dead letters, and what each winner's spin got from the pool."""
    closing = opening = claims = won = 0
    claim_codes: dict[str, int] = {}
    for record in read_all(bootstrap, prefix + WALLET_EVENTS):
        for event in decode_all(record.value):
            if getattr(event.data, "code", None) in skew_plan.AGE_CODES:
                closing += event.data.command_type in skew_plan.CLOSING_TYPES
                opening += event.data.command_type not in skew_plan.CLOSING_TYPES
    for record in read_all(bootstrap, prefix + JACKPOT_EVENTS):
        for event in decode_all(record.value):
            won += isinstance(event.data, JackpotWon)
            if isinstance(event.data, ClaimRejected):
                claim_codes[event.data.code] = claim_codes.get(event.data.code, 0) + 1
            claims += getattr(event.data, "code", None) in skew_plan.AGE_CODES
    paid = {}
    for record in read_all(bootstrap, prefix + SPIN_EVENTS):
        for event in decode_all(record.value):
            if isinstance(event.data, SpinSettled) and event.data.player_id in winners:
                paid.setdefault(event.data.player_id, event.data.jackpot_win_minor)
    dead = sum(len(read_all(bootstrap, prefix + dlq_name(t))) for t in (WALLET_INTERNAL, JACKPOT_INTERNAL))
    return {
        "closing_refused_by_age": closing,
        "opening_refused_by_age": opening,
        "jackpot_refused_by_age": claims,
        "internal_dead_letters": dead,
        "jackpot_paid_minor": paid,
        "jackpot_answers": {"won": won, "claims_rejected": claim_codes},
    }


def command_ages(bootstrap: str, prefix: str) -> dict[str, dict]:
    """How old each internal command looked where it was decided (its record's broker time minus its date), by type:
    count, youngest and oldest in seconds."""
    ages: dict[str, list[float]] = {}
    for topic in (WALLET_INTERNAL, JACKPOT_INTERNAL):
        for record in read_all(bootstrap, prefix + topic):
            for command in decode_all(record.value):
                ages.setdefault(command.type, []).append((record.timestamp - epoch_ms(command.time)) / 1000)
    return {
        kind: {"count": len(found), "min_age_s": round(min(found), 3), "max_age_s": round(max(found), 3)}
        for kind, found in sorted(ages.items())
    }


def _stopwatch(stages: dict[str, float]):
    """A lap timer: each call records the seconds since the previous one under its name and returns them."""
    last = [time.monotonic()]

    def lap(name: str) -> float:
        now = time.monotonic()
        stages[name] = round(now - last[0], 1)
        last[0] = now
        return stages[name]

    return lap


def run(paths: InfraPaths, base_port: int, per_partition: int, spins_per_player: int, echo) -> dict:
    nodes = cluster.cluster(3, base_port)
    shutil.rmtree(paths.state / "kafka-cluster", ignore_errors=True)  # a proof starts from empty logs
    skewed = skewed_environ(os.environ, SKEW_S, faketime_library())
    services: dict = {}
    stages: dict[str, float] = {}
    lap = _stopwatch(stages)
    try:
        cluster.up(paths, nodes, echo, {SKEWED: skewed})
        lap("cluster")
        prefix = f"skew{uuid.uuid4().hex[:10]}."
        create_topics(nodes.bootstrap, prefix)
        clocks = clock_ahead_s(nodes.bootstrap)
        echo(f"node clocks ahead of this machine (s): {clocks}")
        group = skew_plan.players(per_partition)
        seeds = ";".join(f"{player}={MYSTERY_SEED}" for player in group.winners)
        lap("topics")
        extra = {"REELSTREAM_TEST_HOOKS": "1", "REELSTREAM_TEST_SEEDS": seeds}
        services = start_services(nodes.bootstrap, prefix, paths.state, 1, extra)
        lap("services")
        driven = asyncio.run(drive(nodes.bootstrap, prefix, group, spins_per_player))
        driven["seconds"] = lap("spins")
        stop_services(services)
        audited = audit(nodes.bootstrap, prefix, paths.state / "audit-skew", at_rest=True)
        topics = refused_by_age(nodes.bootstrap, prefix, group.winners)
        topics["command_ages"] = command_ages(nodes.bootstrap, prefix)
        lap("audit")
        return {
            "skew_s": SKEW_S,
            "clocks_ahead_s": clocks,
            "players": asdict(group),
            **driven,
            "audit": audited,
            **topics,
            "stages_s": stages,
        }
    finally:
        tear_down(paths, nodes, services, echo)


def observed(result: dict) -> skew_plan.Observed:
    winners = result["players"]["winners"]
    return skew_plan.Observed(
        sent=result["sent"],
        answers=result["answers"],
        open_wagers=result["audit"]["open_wagers"],
        discrepancies=result["audit"]["discrepancies"],
        closing_refused_by_age=result["closing_refused_by_age"],
        jackpot_refused_by_age=result["jackpot_refused_by_age"],
        internal_dead_letters=result["internal_dead_letters"],
        winners=len(winners),
        winners_paid=sum(1 for w in winners if result["jackpot_paid_minor"].get(w, 0) > 0),
        skewed_clock_ahead_s=result["clocks_ahead_s"][SKEWED],
        past_window=skew_plan.past_window(result["command_ages"]),
    )


def command(
    per_partition: int = typer.Option(3, min=1, help="Players on each of the six player partitions."),
    spins_per_player: int = typer.Option(4, min=1, help="Spins per player, both games in turn."),
    base_port: int = typer.Option(29392, help="First broker port of the cluster (three brokers, two ports each)."),
    out: Path = typer.Option(Path("bench-results/skewed-broker.json"), help="The JSON result; a .md beside it."),
) -> None:
    """A broker an hour ahead leading the internal command partitions: 0 open wagers, nothing closing refused by age."""
    console = Console(highlight=False)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    base = default_paths()
    if "REELSTREAM_STATE_DIR" not in os.environ:
        base = InfraPaths(state=base.state / "skewed-broker", cache=base.cache)
    result = run(base, base_port, per_partition, spins_per_player, lambda line: console.print(line, markup=False))
    result["failures"] = skew_plan.failures(observed(result), SKEW_S)
    result["cpus"] = os.cpu_count()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    out.with_suffix(".md").write_text(skew_plan.markdown(result))
    console.print(skew_plan.markdown(result), markup=False)
    if result["failures"]:
        console.print(f"[red]failed: {result['failures']}[/red]")
        raise typer.Exit(1)
    console.print(f"[green]every wager closed, nothing closing refused by age[/green]; results in {out}")
