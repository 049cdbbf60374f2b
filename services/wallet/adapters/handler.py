"""A command of wallet.commands or wallet.internal as the loop read it (shared/inbound.py) in, the records to produce
out: decided by the core against the partition's book, each new fact encoded once and its place kept, a repeat
answered with the first record of each fact it names; free of Kafka, and nothing here raises on bad input."""

from __future__ import annotations

from shared import inbound, records
from shared.events import encode
from shared.events.envelope import broker_time
from shared.inbound import DATA, Input, Inbound
from shared.input_position import Output
from shared.topics import WALLET_COMMANDS, WALLET_INTERNAL

from services.wallet.adapters import operator_answers
from services.wallet.adapters.written import Written
from services.wallet.core import WalletBook, WalletCore

HEADERS = records.headers_for("wallet")
# Both inputs: a cashier's or operator's command, and the spin service's; an undecodable one is answered to the
# player its data names when this partition is theirs (its id derives from where the record was read).
INPUTS = tuple(
    Input(logical, answer=DATA, cause_physical=True, awards=True) for logical in (WALLET_COMMANDS, WALLET_INTERNAL)
)
CORE = WalletCore()


def decided(partition: WalletBook, found: Inbound, written: Written) -> list[Output]:
    """The records one read command makes the wallet write: its events or the facts its repeat names again (tagged
    for an operator's copy; a fact committed in an earlier batch is read back before it is sent: Written.completed),
    then the dead letters of what the core refused."""
    message = found.message
    assert message is not None, "only a read message is decided"
    decision = CORE.decide(partition, message, broker_time(message.broker_ms))
    tagged = operator_answers.tag(message.operator)
    outputs = []
    for event in decision.events:  # each recorded at the decision's broker time
        key, value = event.key, encode(event)
        written.fact(str(event.id), (key, value), message.broker_ms)
        outputs.append(Output(False, key, value, HEADERS, tag=tagged))
    for fact_id in decision.repeated:
        key, value = written.again(fact_id) or (None, b"")
        outputs.append(Output(False, key, value, HEADERS, tag=tagged))
    commands = commands_topic(found.record.topic)
    for refusal in decision.dead_letters:
        letter = inbound.dead_letter(found, refusal, "wallet", commands)
        outputs.append(Output(True, letter.key, letter.value, letter.headers, letter.topic))
    return outputs


def commands_topic(physical: str) -> str:
    """The physical wallet.commands topic beside `physical` (whose DLQ is the loop's own)."""
    logical = WALLET_INTERNAL if physical.endswith(WALLET_INTERNAL) else WALLET_COMMANDS
    return physical.removesuffix(logical) + WALLET_COMMANDS
