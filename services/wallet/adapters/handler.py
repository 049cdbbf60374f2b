"""What the wallet reads and writes, declared for the loop (shared/inbound.py, shared/emit.py): commands of
wallet.commands and wallet.internal in; each fact on wallet.events (the loop's events topic), a repeat answered with the
first record of each fact it names, and an operator's cashier command answered on its wallet.answers.<O> too."""

from __future__ import annotations

from typing import Any

from shared import operators
from shared.decision import NOTHING, Decision, Message
from shared.emit import Emits, Emitter, Route
from shared.events import Envelope
from shared.inbound import DATA, Inbound, Input
from shared.input_position import Copy
from shared.topics import WALLET_COMMANDS, WALLET_EVENTS, WALLET_INTERNAL

from services.seamless_saga.core.route import seamless_wager
from services.wallet.core import WalletBook, WalletCore

# Both inputs: a cashier's or operator's command, and the spin service's; an undecodable one is answered to the
# player its data names when this partition is theirs (its id derives from where the record was read).
INPUTS = tuple(
    Input(logical, answer=DATA, cause_physical=True, awards=True) for logical in (WALLET_COMMANDS, WALLET_INTERNAL)
)
CORE = WalletCore()


class LedgerOnly:
    """The wallet's core for the ledger's commands: a seamless operator's wager is the seamless saga's, which reads
    wallet.internal too (docs/seamless.md), so the ledger writes nothing for it."""

    def __init__(self, core: WalletCore) -> None:
        self.core = core

    def decide(self, book: WalletBook, message: Message, now: Any) -> Decision:
        payload = message.payload
        if isinstance(payload, Envelope) and seamless_wager(payload.data):
            return NOTHING
        return self.core.decide(book, message, now)


def _copy(book: WalletBook, found: Inbound, fact: Envelope[Any] | None) -> Copy | None:
    """The copy of a fact answering a command bound to an operator (its cashier key's), on its wallet.answers.<O>."""
    operator_id = found.message.operator if found.message is not None else None
    return Copy(operators.wallet_answers_topic(operator_id)) if operators.known(operator_id) else None


EMITS = Emits(writer="wallet", span="wallet command", events=Route(copied=True), copy=_copy)


def emitter(events_topic: str, commands_topic: str, restoring: Any = None) -> Emitter:
    """The wallet's path from commands to records, for a deployment's topics (physical names)."""
    prefix = events_topic.removesuffix(WALLET_EVENTS)
    return Emitter(EMITS, LedgerOnly(CORE), lambda logical: prefix + logical, commands_topic, restoring)
