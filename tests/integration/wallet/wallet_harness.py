"""Drive the real wallet service: fresh prefixed topics, spawn/kill/restart, send commands, read wallet.events back."""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from kafka import TopicPartition

from reelstream.processes import ServiceProcess, spawn
from shared import records
from shared.events import decode, derived_id, encode, envelope
from shared.events.wallet import DebitWager, Deposit, SettleWager
from shared.kafka import consumer, producer
from shared.topic_admin import delete_prefixed, ensure_topics
from shared.topics import PLAYER_PARTITIONS


def fresh_prefix() -> str:
    return f"wallet-it-{uuid.uuid4().hex[:12]}-"


def create_topics(bootstrap: str, prefix: str) -> None:
    ensure_topics(bootstrap, prefix=prefix)


def drop_topics(bootstrap: str, prefix: str) -> None:
    """Every topic under the test's uuid prefix."""
    delete_prefixed(bootstrap, prefix)


def start(
    bootstrap: str, prefix: str, datadir: Path, log_dir: Path, crash_at: str | None = None, **extra_env: str
) -> ServiceProcess:
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": bootstrap,
        "REELSTREAM_TOPIC_PREFIX": prefix,
        "REELSTREAM_WALLET_DATADIR": str(datadir),
        "REELSTREAM_CRASH_AT": crash_at or "",
        **extra_env,
    }
    service = spawn("wallet", env=env, log_dir=log_dir)
    service.wait_ready(90)
    return service


def wager_commands(players: int, wagers: int) -> list:
    """Per player: a deposit of 1,000, then `wagers` debits of 10, each settled with a small win and contribution."""
    commands = []
    for p in range(players):
        player = f"it-player-{p}"
        commands.append(
            Deposit(
                transaction_id=derived_id("it", player, "deposit"), player_id=player, amount_minor=1_000, currency="EUR"
            )
        )
        for w in range(wagers):
            wager_id = derived_id("it", player, "wager", w)
            commands.append(
                DebitWager(
                    transaction_id=wager_id, player_id=player, amount_minor=10, currency="EUR", game="rising-joker"
                )
            )
            commands.append(
                SettleWager(
                    transaction_id=derived_id("it", player, "settle", w),
                    player_id=player,
                    wager_id=wager_id,
                    currency="EUR",
                    house_win_minor=(p + w) % 25,
                    jackpot_win_minor=0,
                    breakage_micro=w,
                    contribution_micro=100_000,
                    network_id="net-it",
                )
            )
    return commands


def expected_balance(player_index: int, wagers: int) -> int:
    return 1_000 + sum((player_index + w) % 25 - 10 for w in range(wagers))


def send(
    bootstrap: str, prefix: str, commands: list, raw: list[tuple[bytes, bytes]] = (), sent_at: datetime | None = None
) -> None:
    """`sent_at`: the commands' CloudEvents time (default now), as a sender that lags dates them."""
    client = producer(bootstrap, client_id="wallet-it")
    now = sent_at or datetime.now(timezone.utc)
    # Stands in for the spin service (internal commands) and the cashier.
    messages = [envelope(data, source="wallet-it", time=now) for data in commands]
    items = [("wallet.commands", message.key, encode(message)) for message in messages]
    for (_, key, value), headers in zip(items, records.stand_in_batch(items, "spin")):
        client.send(prefix + "wallet.commands", key=key, value=value, headers=headers)
    # Malformed records as the cashier would send them (signed where they have a type the cashier signs).
    garbage = [("wallet.commands", key, value) for key, value in raw]
    for (_, key, value), headers in zip(garbage, records.stand_in_batch(garbage, "cashier")):
        client.send(prefix + "wallet.commands", key=key, value=value, headers=headers)
    client.flush(30)
    client.close(10)


def read_until(bootstrap: str, topic: str, done, timeout_s: float, partitions: int = PLAYER_PARTITIONS) -> list:
    """Every record of `topic` from the start, polling until done(records) or the timeout (then returns what it has)."""
    reader = consumer(bootstrap, group_id=None, consumer_timeout_ms=1_000)
    reader.assign([TopicPartition(topic, p) for p in range(partitions)])
    reader.seek_to_beginning()
    records, deadline = [], time.monotonic() + timeout_s
    while time.monotonic() < deadline and not done(records):
        for batch in reader.poll(timeout_ms=500).values():
            records.extend(batch)
    reader.close()
    return records


def facts_by_transaction(records) -> dict[str, dict[str, bytes]]:
    """transaction id -> {event id -> bytes}; a byte-identical redelivery collapses, a second fact does not."""
    facts: dict[str, dict[str, bytes]] = defaultdict(dict)
    for record in records:
        event = decode(record.value, expect_kind="event")
        seen = facts[str(event.data.transaction_id)]
        assert seen.get(str(event.id), record.value) == record.value, "one event id, two contents"
        seen[str(event.id)] = record.value
    return facts


def fold_postings(records) -> dict[tuple[str, str], int]:
    """(currency, account) -> micro-units, from the postings of each distinct event id."""
    balances: dict[tuple[str, str], int] = defaultdict(int)
    seen: set[str] = set()
    for record in records:
        event = decode(record.value, expect_kind="event")
        if str(event.id) in seen:
            continue
        seen.add(str(event.id))
        for posting in getattr(event.data, "postings", ()):
            balances[(event.data.currency, posting.account)] += posting.amount_micro
    return dict(balances)
