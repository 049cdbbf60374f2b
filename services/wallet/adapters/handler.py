"""A command of wallet.commands or wallet.internal as the loop read it (shared/inbound.py) in, the records to produce
out: decided against the partition; free of Kafka, and nothing here raises on bad input."""

from __future__ import annotations

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


def decided(partition: WalletBook, found: Inbound) -> list[Output]:
    """The records one read command makes the wallet write: its events (tagged for an operator's copy), then the
    dead letters of what the core refused."""
    message = found.message
    assert message is not None, "only a read message is decided"
    now = broker_time(message.broker_ms)
    decision = decide(partition, message.payload, now, proofs=records.proof_problem, operator=message.operator)
    tagged = operator_answers.tag(message.operator)
    outputs = [Output(False, event.key, written(partition, event), HEADERS, tag=tagged) for event in decision.events]
    commands = commands_topic(found.record.topic)
    for refusal in decision.dead_letters:
        letter = inbound.dead_letter(found, refusal, "wallet", commands)
        outputs.append(Output(True, letter.key, letter.value, letter.headers, letter.topic))
    return outputs


def commands_topic(physical: str) -> str:
    """The physical wallet.commands topic beside `physical` (whose DLQ is the loop's own)."""
    logical = WALLET_INTERNAL if physical.endswith(WALLET_INTERNAL) else WALLET_COMMANDS
    return physical.removesuffix(logical) + WALLET_COMMANDS
