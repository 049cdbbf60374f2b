"""One record of wallet.commands in, the records to produce out: verify, decode, decide against the partition, apply.

Free of Kafka: the loop passes its WalletBook and the record; tests pass them directly. Every event is applied
to the partition state as it is emitted (the same `apply` recovery folds with). An internal command its trusted
writer did not send is quarantined; undecodable input becomes a rejection event when a player can be named, else a
dead letter with the reason in headers (shared/records.py); nothing here raises on bad input.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import orjson

from shared import records
from shared.partitioning import misplaced
from shared.input_position import Output
from shared.events import DecodeError, decode, derived_id, encode, envelope
from shared.events.envelope import broker_time
from shared.events.wallet import CommandRejected
from shared.topics import WALLET_COMMANDS

from services.wallet.core.book import WalletBook
from services.wallet.core import SOURCE, decide, evolve, lookup

HEADERS = records.headers_for("wallet")


@dataclass(frozen=True)
class _Position:
    """Where a record came from, in the shape the record module's dead letters read."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]]


def handle(
    partition: WalletBook,
    key: bytes | None,
    value: bytes | None,
    timestamp_ms: int,
    position: tuple[str, int, int],
    headers: list[tuple[str, bytes]] | None = None,
    partitions: int | None = None,
) -> list[Output]:
    """`position` is (topic, partition, offset) of the record: it names refusals that own no transaction id.
    `headers` are the record's: an internal command (debit, settle, refund) is applied only when the spin service
    wrote it. `partitions` is the topic's partition count: a command off its key's partition is dead-lettered
    WRONG_PARTITION (this partition's book does not hold its player)."""
    now = broker_time(timestamp_ms)
    record = _Position(*position, key, value, headers or [])
    problem = records.provenance_problem(WALLET_COMMANDS, headers, value)
    if problem is not None:
        letter = records.quarantined(WALLET_COMMANDS, position[0], record, problem, consumer="wallet")
        return [Output(True, key, letter.value, letter.headers)]
    wrong = records.placement_problem(WALLET_COMMANDS, record, partitions)
    if wrong is not None:
        letter = records.misplaced_letter(WALLET_COMMANDS, position[0], record, wrong, consumer="wallet")
        return [Output(True, key, letter.value, letter.headers)]
    try:
        command = decode(value, expect_kind="command")
        if command.data.TOPIC != WALLET_COMMANDS:
            raise DecodeError("type", f"{command.type} is not a wallet command", orjson.loads(value))
        if key != command.key:
            raise DecodeError("subject", "the record key must be the player id", orjson.loads(value))
    except DecodeError as error:
        output, event = _undecodable(error, key, value, now, position, partitions)
        if event is not None:
            evolve(partition, event, output.value)
        return [output]
    state = partition.state_of(command.data.player_id)
    earlier = lookup(state, str(command.data.transaction_id), timestamp_ms)
    outputs = []
    for event in decide(state, command, now):
        if earlier is not None and str(event.id) == earlier.event_id:
            event_bytes = earlier.event_bytes  # a repeat: the very bytes emitted the first time
        else:
            event_bytes = encode(event)
        evolve(partition, event, event_bytes)
        outputs.append(Output(False, event.key, event_bytes, HEADERS))
    return outputs


def _undecodable(error: DecodeError, key: bytes | None, value: bytes | None, now, position, partitions: int | None):
    """(output, the rejection event or None for a dead letter). The rejection lands on this partition: only when it
    is the named player's (a keyless record may sit anywhere)."""
    topic, partition, offset = position
    player_id = error.readable_player(key)
    if player_id is not None and partitions and misplaced(player_id.encode(), partition, partitions):
        player_id = None
    if player_id is not None:
        cause = derived_id("wallet", "undecodable", topic, partition, offset)
        transaction_id = _uuid_or(error.readable("transaction_id"), cause)
        rejection = CommandRejected(
            transaction_id=transaction_id,
            player_id=player_id,
            recorded_at=now,
            command_type=str(_type(error)),
            code="INVALID_REQUEST",
            message=f"{error.field}: {error.reason}"[:500],
        )
        event = envelope(rejection, source=SOURCE, time=now, id=cause)
        return Output(False, player_id.encode(), encode(event), HEADERS), event
    letter = records.undecodable(
        WALLET_COMMANDS, topic, _Position(topic, partition, offset, key, value, []), error, consumer="wallet"
    )
    return Output(True, key, letter.value, letter.headers), None


def _type(error: DecodeError) -> str:
    raw_type = error.raw.get("type") if isinstance(error.raw, dict) else None
    return raw_type if isinstance(raw_type, str) else "unknown"


def _uuid_or(candidate: object, fallback: uuid.UUID) -> uuid.UUID:
    try:
        return uuid.UUID(str(candidate)) if candidate is not None else fallback
    except ValueError:
        return fallback
