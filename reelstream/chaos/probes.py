"""The probe round after each batch of hostile records: every consumer shows it is alive in its own way (the money
services answer, the SDK's reader reads, the projector catches up, the monitor counts, the audit completes and finds
nothing moved but by the probes; docs/chaos.md, "The campaign")."""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from kafka.errors import KafkaError

from reelstream.chaos import probe_reads as reads
from reelstream.chaos.campaign import PROBE_OPERATOR, PROBE_PLAYERS
from reelstream.chaos.campaign_book import ProbeBook
from reelstream.chaos.campaign_report import Finding, ProbeRound
from reelstream.chaos.deployment import Deployment
from reelstream.chaos.platform import Platform
from reelstream.client import ReelstreamClient, Settled, SpinTimeout
from shared import records
from shared.events import encode, envelope
from shared.events import jackpot as jp
from shared.events.wallet import Deposited
from shared.kafka import admin_client, producer
from shared.operators import OPERATORS, cashier_role, client_role
from shared.session import issue_token
from shared.topics import JACKPOT_COMMANDS

GAME, CURRENCY, STAKE_MINOR, DEPOSIT_MINOR = "rising-joker", "EUR", 10, 200
NETWORK, POOL = "diamond-mystery", "dm-green"
# The services each probe needs running: with one of them stopped the probe is not asked (its stop is the finding).
NEEDS = {
    "deposit": ("wallet",),
    "spin": ("wallet", "jackpot", "spin"),
    "public spin": ("wallet", "jackpot", "spin"),
    "pool command": ("jackpot",),
    "caught up": ("wallet", "jackpot", "spin"),
    "projector": ("projector",),
    "monitor": ("monitor",),
    "audit": (),
}


def session_ring() -> str:
    """A session key per operator (the services' REELSTREAM_SESSION_KEYS): the probes' tokens bind their operator."""
    return ",".join(f"k{index}@{operator}:{secrets.token_urlsafe(32)}" for index, operator in enumerate(OPERATORS))


class Probes:
    def __init__(self, deployment: Deployment, platform: Platform, timeout_s: float, audit_dir: Path) -> None:
        settings = deployment.settings
        self.deployment, self.platform, self.timeout_s = deployment, platform, timeout_s
        self.book = ProbeBook()
        self.ring = deployment.env["REELSTREAM_SESSION_KEYS"]
        bootstrap, prefix = settings.kafka_bootstrap_servers, settings.topic_prefix
        self.cashier = ReelstreamClient(
            bootstrap, prefix, role=cashier_role(PROBE_OPERATOR), operator_id=PROBE_OPERATOR
        )
        self.front = ReelstreamClient(bootstrap, prefix, role=client_role(PROBE_OPERATOR), operator_id=PROBE_OPERATOR)
        self.public = ReelstreamClient(bootstrap, prefix)  # reads spin.events and wallet.events, as the SDK does
        self.operator = producer(bootstrap, client_id="fuzz-probe-operator", role="operator")
        self.admin = admin_client(bootstrap, client_id="fuzz-probe")
        self.audit = reads.Audits(settings, audit_dir)

    def round(self, after_batch: int, restart: str | None = None) -> ProbeRound:
        found = ProbeRound(after_batch, restart)
        found.findings += self.platform.stopped()
        steps: list[tuple[str, Callable[[], list[Finding]]]] = [
            ("deposit", self._deposits),
            ("spin", lambda: self._spin(self.front, PROBE_PLAYERS[0], "spin")),
            ("public spin", lambda: self._spin(self.public, PROBE_PLAYERS[1], "sdk answer reader")),
            ("pool command", self._pool_command),
            ("caught up", lambda: reads.caught_up(self.deployment.settings, self._deadline())),
            ("projector", lambda: reads.projected(self.deployment.settings, self.book, self._deadline())),
            ("monitor", lambda: reads.counted(self.platform.monitor_port, self.book, self._deadline())),
            ("audit", lambda: self.audit.run(self.book)),
        ]
        for name, step in steps:
            if not all(self.platform.running(service) for service in NEEDS[name]):
                continue
            started = time.monotonic()
            found.findings += step()
            found.timings_s[name] = round(time.monotonic() - started, 3)
        found.findings += self.platform.stopped()
        return found

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout_s

    def _deposits(self) -> list[Finding]:
        findings = []
        for player in PROBE_PLAYERS:
            try:
                answer = self.cashier.deposit(player, DEPOSIT_MINOR, CURRENCY, timeout_s=self.timeout_s)
            except TimeoutError:
                findings.append(Finding("wallet", "no answer", f"a deposit for {player} in {self.timeout_s} s"))
                continue
            if not isinstance(answer, Deposited):
                findings.append(Finding("wallet", "refused a probe", f"deposit for {player}: {answer.code}"))
                continue
            moved = self.book.deposited(player, CURRENCY, DEPOSIT_MINOR, answer.balance_after_minor)
            findings += [Finding("money", "moved", line) for line in moved]
        return findings

    def _spin(self, client: ReelstreamClient, player: str, consumer: str) -> list[Finding]:
        """One spin asked again with its id until answered (a repeat is answered the same) or out of time."""
        request_id, deadline = uuid.uuid4(), self._deadline()
        token = issue_token(self.ring, player, time.time_ns() // 1_000_000 + 3_600_000, operator_id=PROBE_OPERATOR)
        while time.monotonic() < deadline and client.reading:
            wait_s = min(10.0, max(1.0, deadline - time.monotonic()))
            try:
                answer = client.spin(
                    player, GAME, STAKE_MINOR, CURRENCY, token, request_id=request_id, timeout_s=wait_s
                )
            except SpinTimeout:
                continue
            if not isinstance(answer, Settled):
                return [Finding("spin", "refused a probe", f"spin of {player}: {answer.code} {answer.message}")]
            moved = self.book.settled(player, GAME, CURRENCY, request_id, answer.data)
            return [Finding("money", "moved", line) for line in moved]
        if not client.reading:
            return [Finding(consumer, "stopped", f"no answer to spin {request_id}: the client's reading thread exited")]
        return [Finding(consumer, "no answer", f"spin {request_id} of {player} in {self.timeout_s} s")]

    def _pool_command(self) -> list[Finding]:
        """A pool command the jackpot refuses (resuming an open pool), answered once its group committed past it:
        the jackpot commits its answer and its position in one transaction, and jackpot.events is the only topic
        the answer is on, which no reader of ours could parse past a hostile record."""
        command = jp.ResumePool(network_id=NETWORK, command_id=uuid.uuid4(), pool_id=POOL, reason="fuzz probe")
        message = envelope(command, source="fuzz-probe", time=datetime.now(timezone.utc))
        value = encode(message)
        headers = records.signed_headers("operator", JACKPOT_COMMANDS, message.key, value)
        self.book.pool_commands.add(command.command_id)
        try:
            sent = self.operator.send(
                self.deployment.topic(JACKPOT_COMMANDS), key=message.key, value=value, headers=headers
            ).get(timeout=30)
        except KafkaError as error:
            return [Finding("jackpot", "no answer", f"the pool command could not be sent: {error}")]
        group = f"{self.deployment.prefix}reelstream-jackpot"
        if reads.committed_past(self.admin, group, sent.topic, sent.partition, sent.offset, self._deadline()):
            return []
        return [
            Finding("jackpot", "no answer", f"pool command {command.command_id} not consumed in {self.timeout_s} s")
        ]

    def close(self) -> None:
        for client in (self.cashier, self.front, self.public):
            client.close()
        self.operator.close(10)
        self.admin.close()
