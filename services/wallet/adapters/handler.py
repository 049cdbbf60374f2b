"""One record of wallet.commands or wallet.internal in, the records to produce out: read once (shared/inbound.py: the
loop's path), decided against the partition; free of Kafka, and nothing here raises on bad input."""

from __future__ import annotations

from dataclasses import dataclass

from shared import inbound, records
from shared.inbound import DATA, Input, Inbound
from shared.input_position import Output
from shared.events.envelope import broker_time
from shared.topics import WALLET_COMMANDS, WALLET_INTERNAL

from services.wallet.adapters import operator_answers
from services.wallet.core.book import WalletBook
from services.wallet.core import decide
from services.wallet.core.evolve import written

HEADERS = records.headers_for("wallet")
# Both inputs: a cashier's or operator's command, and the spin service's; an undecodable one is answered to the
# player its data names when this partition is theirs (its id derives from where the record was read).
INPUTS = tuple(Input(logical, answer=DATA, cause_physical=True) for logical in (WALLET_COMMANDS, WALLET_INTERNAL))


@dataclass(frozen=True)
class _Position:
    """A record in the shape the loop reads (tests and tools hand the handler its parts)."""

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
) -> list[Output]:
    """`position` is (topic, partition, offset) of the record: it names refusals that own no transaction id, and its
    topic (wallet.commands or wallet.internal, under a prefix) which types belong and which DLQ takes the refusals.
    `headers` are the record's: an internal command (debit, place, settle, refund) is applied only when the spin
    service wrote it; a cashier command signed with `cashier.<O>`'s key is bound to operator O (its events are tagged
    for wallet.answers.<O>: operator_answers). `partitions` is the topic's partition count: a command off its key's
    partition is dead-lettered WRONG_PARTITION (this partition's book does not hold its player)."""
    record = _Position(*position, key, value, headers or [], timestamp_ms)
    spec = INPUTS[1] if position[0].endswith(WALLET_INTERNAL) else INPUTS[0]
    found = inbound.read(spec, record, partitions)
    if found.refusal is not None:
        letter = inbound.refused(found, "wallet", _commands_topic(position[0]))
        return [Output(True, letter.key, letter.value, letter.headers, letter.topic)] if letter is not None else []
    return decided(partition, found)


def decided(partition: WalletBook, found: Inbound) -> list[Output]:
    """The records one read command makes the wallet write: its events (tagged for an operator's copy), then the
    dead letters of what the core refused."""
    message = found.message
    assert message is not None, "only a read message is decided"
    now = broker_time(message.broker_ms)
    decision = decide(partition, message.payload, now, proofs=records.proof_problem, operator=message.operator)
    tagged = operator_answers.tag(message.operator)
    outputs = [Output(False, event.key, written(partition, event), HEADERS, tag=tagged) for event in decision.events]
    commands_topic = _commands_topic(found.record.topic)
    for refusal in decision.dead_letters:
        letter = inbound.dead_letter(found, refusal, "wallet", commands_topic)
        outputs.append(Output(True, letter.key, letter.value, letter.headers, letter.topic))
    return outputs


def _commands_topic(physical: str) -> str:
    """The physical wallet.commands topic beside `physical` (whose DLQ is the loop's own)."""
    logical = WALLET_INTERNAL if physical.endswith(WALLET_INTERNAL) else WALLET_COMMANDS
    return physical.removesuffix(logical) + WALLET_COMMANDS
