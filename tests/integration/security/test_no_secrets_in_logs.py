"""No password and no session key in what a run leaves behind: the money-path services start as their own principals on
a secured deployment (the projector has tests of its own database), take a spin request with a genuine token, and
stop; their logs, the request's dead letter and the answer topic are scanned for every role's password, the session
keys, the signing keys and the token."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from reelstream.processes import spawn, stop_all
from shared.config import load_settings
from shared.kafka import producer
from shared.session import issue_token, key_ring
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS, dlq_name
from ops.topic_records import records_to_end


MONEY_PATH = ("wallet", "jackpot", "spin")


def _everything_in(bootstrap: str, topic: str) -> bytes:
    """Each record's value and header values, what open and aborted transactions wrote included."""
    found = records_to_end(bootstrap, topic, isolation_level="read_uncommitted")
    return b"".join((record.value or b"") + b"".join(v for _, v in record.headers or ()) for record in found)


def test_no_secret_or_token_appears_in_the_services_logs_or_topics(secured, deployment, tmp_path):
    clients = Path(os.environ["REELSTREAM_KAFKA_CLIENTS_DIR"])
    secrets = [json.loads(path.read_text())["sasl_password"] for path in clients.glob("*.json")]
    ring = key_ring(load_settings().session_secret)
    secrets += [secret.decode() for _, secret in ring.keys]
    signing_dir = os.environ.get("REELSTREAM_SIGNING_DIR")  # the writers' private signing keys, where there are any
    if signing_dir:
        secrets += [json.loads(path.read_text())["private_key"] for path in Path(signing_dir).glob("*.key.json")]
    token = issue_token(ring, "p-secret-scan", int(time.time() * 1000) + 600_000)
    env = {
        "REELSTREAM_TOPIC_PREFIX": deployment,
        "REELSTREAM_WALLET_DATADIR": str(tmp_path / "wallet"),
        "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
        "REELSTREAM_LOG_LEVEL": "DEBUG",
    }
    started = [spawn(name, env=env, log_dir=tmp_path / "logs") for name in MONEY_PATH]
    try:
        for service in started:
            service.wait_ready(90)
        writer = producer(secured, role="game-client")
        request = {"token": token, "note": "not a valid spin request: it is dead-lettered with its bytes"}
        writer.send(deployment + SPIN_REQUESTS, key=b"p-secret-scan", value=json.dumps(request).encode()).get(15)
        writer.close(timeout=5)
        deadline = time.monotonic() + 60
        while not _everything_in(secured, deployment + dlq_name(SPIN_REQUESTS)) and time.monotonic() < deadline:
            time.sleep(0.5)  # bounded by the deadline
    finally:
        stop_all(started)
    logs = "".join(service.log_text() for service in started)
    assert "reelstream-service-ready" in logs
    for secret in secrets + [token]:
        assert secret not in logs
    assert _everything_in(secured, deployment + dlq_name(SPIN_REQUESTS)), "the bad request was not dead-lettered"
    for secret in secrets:
        assert secret.encode() not in _everything_in(secured, deployment + SPIN_EVENTS)
