"""One record of wallet.commands in, the records to produce out: decode, decide against the partition, apply.

Free of Kafka: the loop passes its PartitionState and the record; tests pass them directly. Every event is applied
to the partition state as it is emitted (the same `apply` recovery folds with). Undecodable input becomes a
rejection event when a player can be named, else a dead letter with the reason in headers; nothing here raises on
bad input.
"""
from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

import orjson

from shared.events import HEADERS, DecodeError, decode, derived_id, encode, envelope
from shared.events.envelope import broker_time
from shared.events.wallet import CommandRejected
from shared.topics import WALLET_COMMANDS

from services.wallet.adapters.partition import PartitionState
from services.wallet.core import SOURCE, decide, lookup

# Header names of a dead letter (the same names the projector uses, so one `ops dlq` tool reads both).
DLQ_REASON = "reelstream-dlq-reason"
DLQ_FIELD = "reelstream-dlq-field"
DLQ_TOPIC = "reelstream-dlq-topic"
DLQ_PARTITION = "reelstream-dlq-partition"
DLQ_OFFSET = "reelstream-dlq-offset"
_PLAYER_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


@dataclass(frozen=True)
class Output:
    dead_letter: bool
    key: bytes | None
    value: bytes
    headers: list[tuple[str, bytes]]


def handle(partition: PartitionState, key: bytes | None, value: bytes | None, timestamp_ms: int,
           position: tuple[str, int, int]) -> list[Output]:
    """`position` is (topic, partition, offset) of the record: it names refusals that own no transaction id."""
    now = broker_time(timestamp_ms)
    try:
        command = decode(value, expect_kind="command")
        if command.data.TOPIC != WALLET_COMMANDS:
            raise DecodeError("type", f"{command.type} is not a wallet command", orjson.loads(value))
        if key != command.key:
            raise DecodeError("subject", "the record key must be the player id", orjson.loads(value))
    except DecodeError as error:
        output, event = _undecodable(error, key, value, now, position)
        if event is not None:
            partition.apply(event, output.value)
        return [output]
    state = partition.state_of(command.data.player_id)
    earlier = lookup(state, str(command.data.transaction_id), timestamp_ms)
    outputs = []
    for event in decide(state, command, now):
        if earlier is not None and str(event.id) == earlier.event_id:
            event_bytes = earlier.event_bytes  # a repeat: the very bytes emitted the first time
        else:
            event_bytes = encode(event)
        partition.apply(event, event_bytes)
        outputs.append(Output(False, event.key, event_bytes, HEADERS))
    return outputs


def _undecodable(error: DecodeError, key: bytes | None, value: bytes | None, now, position):
    """(output, the rejection event or None for a dead letter)."""
    topic, partition, offset = position
    player_id = error.readable("player_id")
    if isinstance(player_id, str) and _PLAYER_ID.match(player_id) and (key is None or key == player_id.encode()):
        cause = derived_id("wallet", "undecodable", topic, partition, offset)
        transaction_id = _uuid_or(error.readable("transaction_id"), cause)
        rejection = CommandRejected(
            transaction_id=transaction_id, player_id=player_id, recorded_at=now, command_type=str(_type(error)),
            code="INVALID_REQUEST", message=f"{error.field}: {error.reason}"[:500],
        )
        event = envelope(rejection, source=SOURCE, time=now, id=cause)
        return Output(False, player_id.encode(), encode(event), HEADERS), event
    headers = [
        (DLQ_REASON, error.reason[:500].encode()),
        (DLQ_FIELD, error.field.encode()),
        (DLQ_TOPIC, topic.encode()),
        (DLQ_PARTITION, str(partition).encode()),
        (DLQ_OFFSET, str(offset).encode()),
    ]
    return Output(True, key, value or b"", headers), None


def _type(error: DecodeError) -> str:
    raw_type = error.raw.get("type") if isinstance(error.raw, dict) else None
    return raw_type if isinstance(raw_type, str) else "unknown"


def _uuid_or(candidate: object, fallback: uuid.UUID) -> uuid.UUID:
    try:
        return uuid.UUID(str(candidate)) if candidate is not None else fallback
    except ValueError:
        return fallback
