"""Run a client command through the conformance vectors against a running platform and judge each answer."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka.admin import NewTopic

from reelstream.client import ReelstreamClient
from reelstream.conformance.relay import Relay, Seen
from reelstream.conformance.vectors import Step, Vector
from shared.kafka import admin_client
from shared.partitioning import partition_for
from shared.session import issue_token
from shared.topic_admin import delete_topics
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS

CLIENT_SLACK_S = 60  # on top of the attempts' timeouts: process start-up, connecting, a group join
RELAY_SETTLE_S = 5.0  # at most, after the client exits, for the relay to see the answer the client reported


@dataclass(frozen=True)
class Run:
    """One run of the client command: its exit status, its answer line (parsed), and its stderr for the report."""

    returncode: int
    answers: list[dict[str, Any]]
    stderr: str


@dataclass(frozen=True)
class Platform:
    bootstrap: str
    prefix: str
    session_secret: str
    partitions: int
    # Where the client under test reads answers (the relay's copy of them): spin.events, or an operator's answer
    # topic spin.answers.<operator> for a client of role game-client.<operator> (shared/operators.py).
    answers_topic: str = SPIN_EVENTS


def parse_answers(stdout: str) -> list[dict[str, Any]]:
    """The JSON lines with an `outcome` (a client may print other lines around them)."""
    found = []
    for line in stdout.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and "outcome" in value:
            found.append(value)
    return found


def check_step(
    step: Step,
    run: Run,
    seen: Seen | None,
    request_id: str,
    player: str,
    platform: Platform,
    deposit_minor: int,
    earlier: list[dict[str, Any] | None],
) -> list[str]:
    """What is wrong with one step's run: the client's answer against the vector and what went through the relay."""
    if len(run.answers) != 1:
        return [
            f"expected exactly one answer line on stdout, got {len(run.answers)} (exit {run.returncode}); "
            f"stderr: {run.stderr.strip()[-300:]}"
        ]
    answer, expect, problems = run.answers[0], step.expect, []
    if answer.get("outcome") != expect["outcome"]:
        problems.append(f"outcome {answer.get('outcome')!r} {answer.get('code') or ''}, expected {expect['outcome']!r}")
    if "code" in expect and answer.get("code") != expect["code"]:
        problems.append(f"code {answer.get('code')!r}, expected {expect['code']!r}")
    if (run.returncode == 0) != (expect["outcome"] == "settled"):
        problems.append(f"exit status {run.returncode} for a {expect['outcome']} spin")
    if answer.get("request_id") != request_id:
        problems.append(f"request_id {answer.get('request_id')!r}, expected {request_id}")
    if "message_contains" in expect and expect["message_contains"] not in str(answer.get("message")):
        problems.append(f"message does not say {expect['message_contains']!r}")
    if expect.get("balance") == "deposit - stake + win":
        wanted = deposit_minor - step.request["stake_minor"] + _number(answer.get("win_minor"))
        if answer.get("balance_after_minor") != wanted:
            problems.append(f"balance_after_minor {answer.get('balance_after_minor')}, expected {wanted}")
    if "same_event_as_step" in expect:
        first = earlier[expect["same_event_as_step"]] or {}
        if answer.get("event_id") != first.get("event_id"):
            problems.append(f"event_id {answer.get('event_id')} differs from step {expect['same_event_as_step']}'s")
    for name in ("attempts", "duplicates"):
        floor = expect.get(f"{name}_at_least")
        if floor is not None and not _number(answer.get(name)) >= floor:
            problems.append(f"{name} {answer.get(name)}, expected at least {floor}")
    return problems + _relayed_problems(step, answer, seen, player, platform)


def _number(value: Any) -> int:
    """A count or amount from the client's JSON line: an integer, else 0 (what the checks then report as wrong)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _relayed_problems(
    step: Step, answer: dict[str, Any], seen: Seen | None, player: str, platform: Platform
) -> list[str]:
    """The requests the client sent (key, partition, header, retries with one id) and the answer it reported."""
    if seen is None or not seen.requests:
        return [f"no request with request_id {answer.get('request_id')} reached spin.requests"]
    problems = []
    partitioner = step.client["partitioner"]
    home = (
        partition_for(player.encode(), platform.partitions)
        if partitioner == "murmur2"
        else zlib.crc32(player.encode()) % platform.partitions
    )
    for partition, key, headers in seen.requests:
        if key != player.encode():
            problems.append(f"record key {key!r}, expected the player id")
        if partition != home:
            problems.append(f"request on partition {partition}; the {partitioner} partitioner puts {player} on {home}")
        if headers.get("content-type") != b"application/cloudevents+json":
            problems.append("request without the header content-type: application/cloudevents+json")
    if _number(answer.get("attempts")) != len(seen.requests):
        problems.append(f"the client says it sent {answer.get('attempts')} requests, {len(seen.requests)} arrived")
    if answer.get("event_id") not in seen.answer_ids:
        written = sorted(set(seen.answer_ids))
        problems.append(f"event_id {answer.get('event_id')} is none of the platform's answers {written}")
    return problems


def player_for(vector: Vector, partitions: int) -> str:
    """A fresh player id; for the wrong-partitioner vector, one whose CRC32 and murmur2 partitions differ."""
    while True:
        player = f"cf-{uuid.uuid4().hex[:10]}-{vector.name}"[:64]
        if not vector.player.get("partitioners_disagree"):
            return player
        if zlib.crc32(player.encode()) % partitions != partition_for(player.encode(), partitions):
            return player


def token(kind: str, player: str, secret: str, now_ms: int) -> str:
    hour_ms = 3_600_000
    return {
        "valid": lambda: issue_token(secret, player, now_ms + hour_ms),
        "forged": lambda: issue_token("not-the-platform-secret-" + uuid.uuid4().hex, player, now_ms + hour_ms),
        "expired": lambda: issue_token(secret, player, now_ms - 60_000),
        "other-player": lambda: issue_token(secret, player + "-other", now_ms + hour_ms),
    }[kind]()


def client_arguments(
    step: Step,
    properties: Path,
    relay_prefix: str,
    player: str,
    request_id: str,
    tok: str,
    answers_topic: str = SPIN_EVENTS,
) -> list[str]:
    r, c = step.request, step.client
    return [
        "--answers-topic",
        answers_topic,
        "--properties",
        str(properties),
        "--topic-prefix",
        relay_prefix,
        "--player",
        player,
        "--game",
        r["game"],
        "--stake",
        str(r["stake_minor"]),
        "--currency",
        r["currency"],
        "--token",
        tok,
        "--request-id",
        request_id,
        "--timeout-ms",
        str(c["timeout_ms"]),
        "--attempts",
        str(c["attempts"]),
        "--linger-ms",
        str(c["linger_ms"]),
        "--partitioner",
        c["partitioner"],
    ]


@contextmanager
def relay_topics(platform: Platform) -> Iterator[str]:
    """Two throwaway topics the client talks to, partitioned like the platform's."""
    relay_prefix = f"{platform.prefix}verify-{uuid.uuid4().hex[:8]}."
    names = [relay_prefix + SPIN_REQUESTS, relay_prefix + platform.answers_topic]
    admin = admin_client(platform.bootstrap, client_id="reelstream-verify-client")
    try:
        admin.create_topics([NewTopic(name, platform.partitions, 1) for name in names])
    finally:
        admin.close()
    try:
        yield relay_prefix
    finally:
        delete_topics(platform.bootstrap, names)


def verify(
    command: list[str],
    vectors: tuple[Vector, ...],
    platform: Platform,
    properties: Path,
    report: Callable[[str, list[str]], None],
) -> int:
    """Run every vector; `report(name, problems)` after each; returns how many failed."""
    failed = 0
    with relay_topics(platform) as relay_prefix, ReelstreamClient(platform.bootstrap, platform.prefix) as cashier:
        relay = Relay(platform.bootstrap, platform.prefix, relay_prefix, platform.answers_topic)
        try:
            for vector in vectors:
                problems = _run_vector(command, vector, platform, properties, relay, relay_prefix, cashier)
                report(vector.name, problems)
                failed += bool(problems)
        finally:
            relay.close()
    return failed


def _run_vector(
    command,
    vector: Vector,
    platform: Platform,
    properties: Path,
    relay: Relay,
    relay_prefix: str,
    cashier: ReelstreamClient,
) -> list[str]:
    player = player_for(vector, platform.partitions)
    deposit_minor = 0
    if vector.deposit is not None:
        cashier.deposit(player, vector.deposit["amount_minor"], vector.deposit["currency"])
        deposit_minor = vector.deposit["amount_minor"]
    relay.fault = vector.fault
    ids: dict[str, str] = {}
    earlier: list[dict[str, Any] | None] = []
    for index, step in enumerate(vector.steps):
        name = step.request.get("request_id")
        request_id = ids.setdefault(name, str(uuid.uuid4())) if name else str(uuid.uuid4())
        tok = token(step.request.get("token", "valid"), player, platform.session_secret, time.time_ns() // 1_000_000)
        before = relay.snapshot(request_id)
        run = _run_client(
            command + client_arguments(step, properties, relay_prefix, player, request_id, tok, platform.answers_topic),
            step,
        )
        since = len(before.requests) if before else 0
        seen = _settled_snapshot(relay, request_id, since, run)
        problems = check_step(step, run, seen, request_id, player, platform, deposit_minor, earlier)
        if relay.error is not None:
            problems.append(f"the relay failed: {relay.error!r}")
        if problems:
            return [f"step {index}: {problem}" for problem in problems]
        earlier.append(run.answers[0])
    return []


def _settled_snapshot(relay: Relay, request_id: str, since: int, run: Run) -> Seen | None:
    """What the relay saw, once it has seen the requests and the answer the client reported (bounded: a made-up id or
    count never comes). A client may answer a repeat from an answer it already read, before its request is relayed."""
    if len(run.answers) != 1:
        return relay.snapshot(request_id, since)
    event_id, attempts = run.answers[0].get("event_id"), run.answers[0].get("attempts")
    attempts = attempts if isinstance(attempts, int) else 1  # the client's word; judged in check_step
    deadline = time.monotonic() + RELAY_SETTLE_S
    while True:
        seen = relay.snapshot(request_id, since)
        complete = seen is not None and event_id in seen.answer_ids and len(seen.requests) >= attempts
        if complete or time.monotonic() >= deadline:
            return seen
        time.sleep(0.05)


def _run_client(argv: list[str], step: Step) -> Run:
    client = step.client
    limit_s = (client["attempts"] * client["timeout_ms"] + client["linger_ms"]) / 1000 + CLIENT_SLACK_S
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=limit_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Run(-1, [], f"the client did not exit within {limit_s:.0f} s")
    return Run(done.returncode, parse_answers(done.stdout), done.stderr)


def local_client_properties(bootstrap: str, scratch: Path) -> Path:
    """The client's settings on this machine: the local principal's `.properties` when the broker is secured
    (`reelstream infra up` writes one per role), else the brokers alone. A studio passes its own role's file."""
    import os

    folder = os.environ.get("REELSTREAM_KAFKA_CLIENTS_DIR")
    role = os.environ.get("REELSTREAM_KAFKA_ROLE", "admin")
    if folder and (Path(folder) / f"{role}.properties").exists():
        return Path(folder) / f"{role}.properties"
    path = scratch / "client.properties"
    path.write_text(f"bootstrap.servers={bootstrap}\n")
    return path
