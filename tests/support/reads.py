"""One record read the way the loop reads it (shared/inbound.py: the service's Input for its topic), for tests that
hand a service a single record: the wallet's outputs for it, the spin core's message, the jackpot core's input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.jackpot.adapters.records import INPUTS as JACKPOT_INPUTS
from services.jackpot.core.decide import JackpotCore
from services.spin.adapters.runner import SPECS
from services.spin.core.book import SpinBook
from services.wallet.adapters.handler import INPUTS as WALLET_INPUTS
from services.wallet.adapters.handler import emitter
from services.wallet.adapters.written import Written
from services.wallet.core.book import WalletBook
from shared import inbound
from shared.decision import Message, Refusal, Undecodable
from shared.events import broker_time
from shared.input_position import Output
from shared.pools import load_pools
from shared.topics import (
    JACKPOT_COMMANDS,
    JACKPOT_INTERNAL,
    SPIN_REQUESTS,
    WALLET_COMMANDS,
    WALLET_EVENTS,
    WALLET_INTERNAL,
)


@dataclass(frozen=True)
class _Record:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]]
    timestamp: int


def handle(
    partition: WalletBook,
    key: bytes | None,
    value: bytes | None,
    timestamp_ms: int,
    position: tuple[str, int, int],
    headers: list[tuple[str, bytes]] | None = None,
    partitions: int | None = None,
    written: Written | None = None,
) -> list[Output]:
    """The wallet's outputs for one record at `position` (topic, partition, offset): its dead letter when the loop
    refuses it, else what the wallet decides (`partitions`: the topic's partition count, None: unknown; `written`:
    the partition's facts with a batch begun, None: a fresh one's)."""
    record = _Record(*position, key, value, headers or [], timestamp_ms)
    spec = WALLET_INPUTS[1] if position[0].endswith(WALLET_INTERNAL) else WALLET_INPUTS[0]
    found = inbound.read(spec, record, partitions)
    if found.refusal is not None:
        letter = inbound.refused(found, "wallet", commands_topic(position[0]))
        return [letter] if letter is not None else []
    if written is None:
        written = Written()
        written.begin()
    return emitter(_beside(position[0], WALLET_EVENTS), commands_topic(position[0])).batch(
        0, partition, [found], written
    )[0]


def commands_topic(physical: str) -> str:
    """The physical wallet.commands topic beside `physical` (a wallet input), whose DLQ is the loop's own."""
    return _beside(physical, WALLET_COMMANDS)


def _beside(physical: str, logical: str) -> str:
    """The physical name of `logical` beside `physical`, a wallet input (a deployment's prefix + its name)."""
    source = WALLET_INTERNAL if physical.endswith(WALLET_INTERNAL) else WALLET_COMMANDS
    return physical.removesuffix(source) + logical


def jackpot_dead_letter(record: Any, code: str, reason: str, field: str = "$") -> Output:
    """A jackpot.commands or jackpot.internal record's dead letter, as the jackpot's path writes it: for its own
    topic's DLQ (None: the loop's, jackpot.commands')."""
    internal = record.topic.endswith(JACKPOT_INTERNAL)
    spec = JACKPOT_INPUTS[1] if internal else JACKPOT_INPUTS[0]
    commands = record.topic.removesuffix(JACKPOT_INTERNAL if internal else JACKPOT_COMMANDS) + JACKPOT_COMMANDS
    return inbound.dead_letter(inbound.Inbound(record, spec), Refusal(code, reason, field), "jackpot", commands)


def request_message(record: Any, partitions: int) -> Message:
    """A spin.requests record as the spin core's message (`partitions`: 0, unknown: the partition is not checked)."""
    found = inbound.read(SPECS[SPIN_REQUESTS], record, partitions).message
    assert found is not None, "every spin.requests record is read"
    return found


def event_message(logical: str, record: Any, partitions: int = 0, book: SpinBook | None = None) -> Message | None:
    """A wallet fact or jackpot answer as the spin core's message, or None: quarantined (with its alert) or none of
    the spin's business (with `book`: a debit it has nothing to do with)."""
    found = inbound.read(SPECS[logical], record, partitions, book)
    if found.refusal is not None:
        inbound.refused(found, "spin", "")
    return found.message


def to_incoming(record: Any, partitions: int | None = None) -> Message | tuple[str, str]:
    """A jackpot.commands or jackpot.internal record as the jackpot core's message, or (code, reason) of its refusal:
    the loop's, or the core's of a record that does not decode."""
    spec = JACKPOT_INPUTS[1] if record.topic.endswith(JACKPOT_INTERNAL) else JACKPOT_INPUTS[0]
    found = inbound.read(spec, record, partitions)
    if found.refusal is not None:
        return found.refusal.code, found.refusal.reason
    if isinstance(found.message.payload, Undecodable):
        decision = JackpotCore(load_pools()).decide({}, found.message, broker_time(found.message.broker_ms))
        return decision.dead_letters[0].code, decision.dead_letters[0].reason
    return found.message
