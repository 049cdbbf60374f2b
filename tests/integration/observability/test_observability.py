"""Health, readiness, metrics, logs and traces of the four running services, as an operator's tools see them.

Scenario: the whole platform (wallet, jackpot, spin, projector) is started on fresh topics and a fresh database, with
every restore lengthened by a test pause; /ready of each service is watched from the moment its endpoint is listed:
503 while it restores, 200 after. Then players deposit and spin (one spin refused for funds, one undecodable wallet
command), and every service's /metrics shows the named series moved; one settled spin's spans, exported to a file,
form one tree across spin, wallet and jackpot, and its trace id is in each of their JSON logs. A debit nothing will
settle then shows on the wallet's oldest-open-wager gauge, its age growing.
"""

from __future__ import annotations

from deploy.local.postgres import drop_database
import asyncio
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timezone

import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from reelstream.client import ReelstreamClient, Rejected, Settled
from reelstream.processes import spawn, stop_all
from shared import records
from shared.config import load_settings
from shared.events import encode, envelope
from shared.events.wallet import DebitWager
from shared.kafka import producer
from shared.observability.http import listed_endpoints
from shared.observability.metrics import WALLET_OLDEST_OPEN_WAGER_AGE_S
from shared.session import issue_token
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS, WALLET_INTERNAL
from shared.waits import wait_until
from tests.support.projector import admin_sql, database_url_for

pytestmark = pytest.mark.integration
SERVICES = ("wallet", "jackpot", "spin", "projector")
PAUSE_S = 2.0


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    status, body = fetch(url + "/metrics")
    assert status == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body.decode())
        for sample in family.samples
    }


def total(samples: dict, name: str, **labels: str) -> float:
    return sum(
        value
        for (found, found_labels), value in samples.items()
        if found == name and all(dict(found_labels).get(k) == v for k, v in labels.items())
    )


SESSION_KEYS = load_settings().session_secret  # the key ring of the environment (tests/conftest.py)


def token_for(player_id: str) -> str:
    return issue_token(SESSION_KEYS, player_id, time.time_ns() // 1_000_000 + 3_600_000)


@pytest.fixture(scope="module")
def platform(kafka_bootstrap: str, database_url: str, tmp_path_factory):
    prefix, database = f"ob{uuid.uuid4().hex[:12]}.", f"t_{uuid.uuid4().hex}"
    ensure_topics(kafka_bootstrap, prefix=prefix)
    asyncio.run(admin_sql(database_url, f'CREATE DATABASE "{database}"'))
    state = tmp_path_factory.mktemp("observability")
    env = {
        "REELSTREAM_TOPIC_PREFIX": prefix,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "DATABASE_URL": database_url_for(database_url, database),
        "REELSTREAM_STATE_DIR": str(state),
        "REELSTREAM_SESSION_KEYS": SESSION_KEYS,
        "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
        "REELSTREAM_LOG_LEVEL": "DEBUG",
        "REELSTREAM_TRACE_FILE": str(state / "spans.jsonl"),
        "REELSTREAM_TEST_RESTORE_PAUSE_S": str(PAUSE_S),
        "REELSTREAM_HTTP_PORT": "0",
    }
    processes = {name: spawn(name, env=env, log_dir=state / "logs") for name in SERVICES}
    watched = watch_readiness(state, processes)
    try:
        for process in processes.values():
            process.wait_ready(120)
        yield {
            "prefix": prefix,
            "state": state,
            "processes": processes,
            "readiness": watched,
            "urls": {name: url for name, url in endpoint_urls(state).items()},
            "bootstrap": kafka_bootstrap,
        }
    finally:
        stop_all(processes.values())
        asyncio.run(drop_database(database_url, database))
        delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


def endpoint_urls(state) -> dict[str, str]:
    return {entry["service"]: entry["url"] for entry in listed_endpoints({"REELSTREAM_STATE_DIR": str(state)})}


def watch_readiness(state, processes, timeout_s: float = 120) -> dict[str, list[tuple[int, dict]]]:
    """Poll /ready of every service from the moment its endpoint is listed until it answers 200."""
    seen: dict[str, list[tuple[int, dict]]] = {name: [] for name in processes}
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not all(seen[n] and seen[n][-1][0] == 200 for n in seen):
        for name, url in endpoint_urls(state).items():
            if not seen[name] or seen[name][-1][0] != 200:
                status, body = fetch(url + "/ready")
                seen[name].append((status, orjson.loads(body)))
        for process in processes.values():
            assert process.process.poll() is None, process.log_text()[-3000:]
        time.sleep(0.05)
    return seen


def test_ready_is_false_while_a_service_restores_and_true_after(platform):
    for name, answers in platform["readiness"].items():
        assert answers[-1][0] == 200, (name, answers[-3:])
        assert answers[-1][1]["ready"] is True
        restoring = [body for status, body in answers if status == 503 and body["restoring"]]
        assert restoring, (name, answers[:3])
        assert all(body["ready"] is False for body in restoring)
    for url in platform["urls"].values():
        assert fetch(url + "/health")[0] == 200


def test_services_status_lists_every_endpoint(platform):
    result = subprocess.run(
        [sys.executable, "-m", "reelstream.cli", "services", "status", "--json"],
        check=True,
        env={**os.environ, "REELSTREAM_STATE_DIR": str(platform["state"])},
        capture_output=True,
    )
    rows = orjson.loads(result.stdout)["services"]
    for name in SERVICES:
        mine = [row for row in rows if row["service"] == name]
        assert [row["state"] for row in mine] == ["ready"]
        assert [row["url"] for row in mine] == [platform["urls"][name]]


@pytest.fixture(scope="module")
def traffic(platform):
    urls = platform["urls"]
    before = {name: scrape(url) for name, url in urls.items()}
    with ReelstreamClient(bootstrap_servers=platform["bootstrap"], topic_prefix=platform["prefix"]) as client:
        client.deposit("ob-1", 10_000, "EUR")
        client.deposit("ob-2", 50, "EUR")
        settled = [client.spin("ob-1", "rising-joker", 100, "EUR", token_for("ob-1")) for _ in range(5)]
        refused = client.spin("ob-2", "rising-joker", 100, "EUR", token_for("ob-2"))
    garbage = producer(platform["bootstrap"])
    garbage.send(platform["prefix"] + "wallet.commands", key=b"ob-1", value=b"{not json")
    garbage.flush()
    garbage.close()
    assert all(isinstance(answer, Settled) for answer in settled)
    assert isinstance(refused, Rejected) and refused.code == "INSUFFICIENT_FUNDS"
    deadline = time.monotonic() + 30
    after = {}
    while time.monotonic() < deadline:
        after = {name: scrape(url) for name, url in urls.items()}
        if (
            total(after["wallet"], "reelstream_dead_letters_total") >= 1
            and total(after["projector"], "reelstream_records_in_total", topic=platform["prefix"] + "spin.events") >= 6
            and all(total(after[n], "reelstream_consumer_lag") == 0 for n in SERVICES)
            # the jackpot commits the spins' contributions beside their answers, not before them: on a loaded
            # machine its last commit can still be under way when the answers are in
            and all(
                total(after[n], "reelstream_batch_seconds_count") > total(before[n], "reelstream_batch_seconds_count")
                for n in ("wallet", "jackpot", "spin")
            )
        ):
            break
        time.sleep(0.5)
    return {"before": before, "after": after, "settled": settled}


def moved(traffic, service: str, name: str, **labels: str) -> bool:
    return total(traffic["after"][service], name, **labels) > total(traffic["before"][service], name, **labels)


def test_metrics_of_every_service_moved_after_traffic(platform, traffic):
    prefix = platform["prefix"]
    inputs = {
        "wallet": "wallet.internal",  # the spins' debits and settlements
        "jackpot": "jackpot.internal",  # their contributions
        "spin": "spin.requests",
        "projector": "spin.events",
    }
    outputs = {"wallet": "wallet.events", "jackpot": "jackpot.events", "spin": "spin.events"}
    for service in SERVICES:
        assert moved(traffic, service, "reelstream_records_in_total", topic=prefix + inputs[service]), service
        assert moved(traffic, service, "reelstream_handler_seconds_count"), service
        assert moved(traffic, service, "reelstream_batch_seconds_count"), service
        assert total(traffic["after"][service], "reelstream_restore_seconds_count") >= 1, service
        assert total(traffic["after"][service], "reelstream_takeover_seconds_count") >= 1, service
        assert total(traffic["after"][service], "reelstream_ready") == 1, service
        lags = [labels for (name, labels), _ in traffic["after"][service].items() if name == "reelstream_consumer_lag"]
        assert len({dict(labels)["partition"] for labels in lags}) >= 2, (service, lags)
        # 0, although wallet.events and jackpot.events end in transaction markers: they are not counted as lag.
        assert total(traffic["after"][service], "reelstream_consumer_lag") == 0, service
    for service, topic in outputs.items():
        assert moved(traffic, service, "reelstream_records_out_total", topic=prefix + topic), service
    for service in ("wallet", "jackpot"):
        assert moved(traffic, service, "reelstream_transaction_commit_seconds_count", store="kafka"), service
    assert moved(traffic, "projector", "reelstream_transaction_commit_seconds_count", store="postgres")
    assert total(traffic["after"]["spin"], "reelstream_spin_seconds_count", outcome="settled") == 5
    assert total(traffic["after"]["spin"], "reelstream_spin_seconds_count", outcome="rejected") == 1
    assert moved(traffic, "spin", "reelstream_rejections_total", code="INSUFFICIENT_FUNDS")
    assert moved(traffic, "wallet", "reelstream_rejections_total", code="INSUFFICIENT_FUNDS")
    assert moved(traffic, "wallet", "reelstream_dead_letters_total")
    assert moved(traffic, "jackpot", "reelstream_pool_level_minor", currency="EUR")
    liability = total(traffic["after"]["wallet"], "reelstream_wallet_liability_minor", currency="EUR")
    wins = sum(answer.win_minor for answer in traffic["settled"])
    assert liability == 10_000 + 50 - 5 * 100 + wins
    ages = [v for (name, _), v in traffic["after"]["wallet"].items() if name == WALLET_OLDEST_OPEN_WAGER_AGE_S._name]
    assert ages == [0.0], "every spin is settled: no wager is open"


def test_a_wager_left_open_shows_its_age_on_the_wallets_metrics(platform, traffic):
    # Scenario: a debit written as the spin service writes one, for a spin no spin book knows, so that nothing ever
    # settles or refunds it; the wallet's gauge then counts its age up from the debit.
    data = DebitWager(
        transaction_id=uuid.uuid4(), player_id="ob-1", amount_minor=10, currency="EUR", game="rising-joker"
    )
    message = envelope(data, source="reelstream/spin", time=datetime.now(timezone.utc))
    value = encode(message)
    writer = producer(platform["bootstrap"], role="spin", client_id="open-wager")
    try:
        headers = records.signed_headers("spin", WALLET_INTERNAL, message.key, value)
        writer.send(platform["prefix"] + WALLET_INTERNAL, key=message.key, value=value, headers=headers).get(30)
    finally:
        writer.close(10)

    def age_s() -> float:
        return total(scrape(platform["urls"]["wallet"]), WALLET_OLDEST_OPEN_WAGER_AGE_S._name)

    first = wait_until(age_s, 30, interval_s=0.5, what="the open wager's age on the wallet's /metrics")
    assert wait_until(lambda: age_s() > first, 10, interval_s=0.5, what="the age growing")


def spans_of(platform) -> list[dict]:
    path = platform["state"] / "spans.jsonl"
    return [orjson.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def test_one_spins_trace_spans_spin_wallet_and_jackpot_and_is_in_their_logs(platform, traffic):
    request_id = str(traffic["settled"][0].request_id)
    spans = spans_of(platform)
    roots = [s for s in spans if s["parent_span_id"] is None and s["name"] == "spin spin.requests"]
    trace_id = next(s["trace_id"] for s in roots if _handles(platform, s, request_id))
    trace = [s for s in spans if s["trace_id"] == trace_id]
    ids = {s["span_id"] for s in trace}
    assert {s["service"] for s in trace} >= {"spin", "wallet", "jackpot"}
    assert sum(1 for s in trace if s["parent_span_id"] is None) == 1
    assert all(s["parent_span_id"] in ids for s in trace if s["parent_span_id"] is not None)
    by_id = {s["span_id"]: s for s in trace}
    parent_services = {(by_id[s["parent_span_id"]]["service"], s["service"]) for s in trace if s["parent_span_id"]}
    assert {("spin", "wallet"), ("wallet", "spin"), ("spin", "jackpot")} <= parent_services
    for name in ("spin", "wallet", "jackpot"):
        lines = [
            orjson.loads(line) for line in platform["processes"][name].log_text().splitlines() if line.startswith("{")
        ]
        mine = [line for line in lines if line.get("trace_id") == trace_id]
        assert mine, name
        assert all(line["service"] == name and "partition" in line for line in mine)
    spin_lines = [
        orjson.loads(line)
        for line in platform["processes"]["spin"].log_text().splitlines()
        if line.startswith("{") and trace_id in line
    ]
    assert any(line.get("request_id") == request_id for line in spin_lines)


def _handles(platform, span: dict, request_id: str) -> bool:
    """Whether the spin service's log says this root span handled the request."""
    for line in platform["processes"]["spin"].log_text().splitlines():
        if line.startswith("{") and span["trace_id"] in line and request_id in line:
            return True
    return False
