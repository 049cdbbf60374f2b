"""One record of wallet.commands or wallet.internal in, the records to produce out: verify, decode, decide against the
partition; free of Kafka, and nothing here raises on bad input (quarantine or dead letter)."""

from __future__ import annotations

from dataclasses import dataclass

from shared import records
from shared.decision import Undecodable
from shared.partitioning import misplaced
from shared.input_position import Output
from shared.events import DecodeError, Envelope
from shared.events.envelope import broker_time
from shared.topics import WALLET_COMMANDS, WALLET_INTERNAL

from services.wallet.adapters import operator_answers
from services.wallet.core.book import WalletBook
from services.wallet.core import decide
from services.wallet.core.evolve import written

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
    """`position` is (topic, partition, offset) of the record: it names refusals that own no transaction id, and its
    topic (wallet.commands or wallet.internal, under a prefix) which types belong and which DLQ takes the refusals.
    `headers` are the record's: an internal command (debit, place, settle, refund) is applied only when the spin
    service wrote it; a cashier command signed with `cashier.<O>`'s key is bound to operator O (its events are tagged
    for wallet.answers.<O>: operator_answers). `partitions` is the topic's partition count: a command off its key's
    partition is dead-lettered WRONG_PARTITION (this partition's book does not hold its player)."""
    record = _Position(*position, key, value, headers or [])
    logical = WALLET_INTERNAL if position[0].endswith(WALLET_INTERNAL) else WALLET_COMMANDS
    signer, problem = records.provenance(logical, headers, value, key)
    if problem is not None:
        letter = records.quarantined(logical, position[0], record, problem, consumer="wallet")
        return [_letter(letter, position[0], logical)]
    wrong = records.placement_problem(logical, record, partitions)
    if wrong is not None:
        letter = records.misplaced_letter(logical, position[0], record, wrong, consumer="wallet")
        return [_letter(letter, position[0], logical)]
    message = command_message(key, value, position, partitions, logical)
    # A cashier command signed with an operator's cashier key is that operator's: bound here, its results copied.
    operator = records.cashier_operator(logical, value, signer)
    decision = decide(partition, message, broker_time(timestamp_ms), proofs=records.proof_problem, operator=operator)
    tagged = operator_answers.tag(operator)
    outputs = [Output(False, event.key, written(partition, event), HEADERS, tag=tagged) for event in decision.events]
    for refusal in decision.dead_letters:
        letter = records.dead_letter(
            logical,
            position[0],
            record,
            code=refusal.code,
            reason=refusal.reason,
            field=refusal.field,
            consumer="wallet",
        )
        outputs.append(_letter(letter, position[0], logical))
    return outputs


def _letter(letter: records.DeadLetter, physical: str, logical: str) -> Output:
    """A dead letter for the DLQ of the record's own topic (the loop's DLQ is wallet.commands'; another input's
    letters name their topic, under the deployment's prefix)."""
    topic = None if logical == WALLET_COMMANDS else records.physical_dlq(physical, logical)
    return Output(True, letter.key, letter.value, letter.headers, topic)


def command_message(
    key: bytes | None,
    value: bytes | None,
    position: tuple[str, int, int],
    partitions: int | None = None,
    logical: str = WALLET_COMMANDS,
) -> Envelope | Undecodable:
    """The record as the core's message: a wallet command keyed by its player, or why it is not one. An undecodable
    record names its player only when this partition is that player's (a rejection lands on this partition; a
    keyless record may sit anywhere)."""
    try:
        return records.decode_on(logical, value, key)
    except DecodeError as error:
        player_id = error.readable_player(key)
        if player_id is not None and partitions and misplaced(player_id.encode(), position[1], partitions):
            player_id = None
        return Undecodable(error, player_id, position)
