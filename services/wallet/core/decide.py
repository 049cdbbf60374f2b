"""WalletCore.decide(book, message, now) -> Decision: refuse by age (never a wager's settlement or refund), answer
repeats with the facts they repeat, else apply the rules; an undecodable command is answered with a rejection when a
player can be named, else dead-lettered."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.decision import CheckedAward, Decision, Message, Undecodable
from shared.events.base import CommandData, EventData
from shared.events.envelope import Envelope, derived_id, envelope, epoch_ms
from shared.events.wallet import (
    CloseAccount,
    CommandRejected,
    DebitWager,
    Deposit,
    PlaceWager,
    RefundWager,
    RemainderCredited,
    SelfExclude,
    SetLimit,
    SettleWager,
    Withdraw,
)
from shared.invariant import invariant

from services.wallet.core import remainders, rules
from services.wallet.core.book import WalletBook
from services.wallet.core.evolve import evolve
from services.wallet.core.fingerprint import fingerprint
from services.wallet.core.memory import lookup
from services.wallet.core.state import WalletState

SOURCE = "reelstream/wallet"

_RULES = {
    Deposit: rules.deposit,
    Withdraw: rules.withdraw,
    DebitWager: rules.debit_wager,
    PlaceWager: rules.place_wager,
    SetLimit: rules.set_limit,
    SelfExclude: rules.self_exclude,
    CloseAccount: rules.close_account,
}
_WAGER_RULES = {SettleWager: rules.settle_wager, RefundWager: rules.refund_wager}
_CASHIER_COMMANDS = (Deposit, Withdraw, SetLimit, SelfExclude, CloseAccount)
# Never refused by age: each closes the open wager it names at most once, so its de-duplication rests on the open
# wagers (bounded by their number), and a wager waits for its settlement or refund however late it comes.
_CLOSING_COMMANDS = (SettleWager, RefundWager)
OPERATOR_MISMATCH = "OPERATOR_MISMATCH"


class WalletCore:
    """The wallet's core as the loop runs it (shared/decision.Core); the JackpotWons a settlement carries come
    decoded and judged with the message (`Message.proof`: shared/records.checked_awards)."""

    def new_state(self, partition: int) -> WalletBook:
        return WalletBook(partition)

    def decide(self, book: WalletBook, message: Message, now: datetime) -> Decision:
        """What one command makes the wallet write at broker time `now`; its events are folded into the book (in
        place, by `evolve`) before this returns. The operator its cashier key binds comes with the message (None: the
        plain cashier's key, or no cashier command)."""
        payload = message.payload
        if isinstance(payload, Undecodable):
            return _undecodable(book, payload, now)
        state = book.state_of(payload.data.player_id)
        decision = decide_player(state, payload, now, awards=message.proof, operator=message.operator)
        for event in decision.events:
            evolve(book, event)
        return decision

    def evolve(self, book: WalletBook, event: Envelope[Any]) -> WalletBook:
        return evolve(book, event)


def _undecodable(book: WalletBook, message: Undecodable, now: datetime) -> Decision:
    """A rejection event when a player can be named (it owns no transaction id), else a dead letter."""
    if message.player_id is None:
        return Decision(dead_letters=(message.refusal(),))
    error = message.error
    cause = derived_id("wallet", "undecodable", *message.cause)
    rejection = CommandRejected(
        transaction_id=error.readable_uuid("transaction_id") or cause,
        player_id=message.player_id,
        recorded_at=now,
        command_type=_raw_type(error.raw),
        code="INVALID_REQUEST",
        message=f"{error.field}: {error.reason}"[:500],
    )
    event = envelope(rejection, source=SOURCE, time=now, id=cause)
    evolve(book, event)
    return Decision(events=(event,))


def _raw_type(raw: object) -> str:
    raw_type = raw.get("type") if isinstance(raw, dict) else None
    return raw_type if isinstance(raw_type, str) else "unknown"


def decide_player(
    state: WalletState,
    command: Envelope[Any],
    now: datetime,
    *,
    awards: Sequence[CheckedAward] | None = None,
    operator: str | None = None,
) -> Decision:
    """What one command makes the wallet write for its player at broker time `now` (nothing folded): one event, an
    accepted PlaceWager's debit and settlement, or a repeat's facts named again. A cashier command is its signer's
    `operator`'s: naming another is refused before anything else (its id is not looked up, so another operator's
    answer is never repeated to it), and its content is fingerprinted with the bound operator (a command of one
    operator repeated by another is a conflict, not a repeat)."""
    data: CommandData = command.data
    invariant(data.player_id == state.player.player_id, "a command must reach its own player's state")
    now_ms = epoch_ms(now)
    if isinstance(data, _CASHIER_COMMANDS):
        if data.operator_id is not None and data.operator_id != operator:
            signer = f"operator {operator}'s" if operator is not None else "no operator's"
            message = f"the command names operator {data.operator_id}; it is signed with {signer} cashier key"
            return _one(_unremembered(command, fingerprint(data), now, OPERATOR_MISMATCH, message))
        data = data.model_copy(update={"operator_id": operator})
    if _another_operators(state, data):
        message = f"the account belongs to another operator than {data.operator_id}"  # the owner is not named
        return _one(_unremembered(command, fingerprint(data), now, OPERATOR_MISMATCH, message))
    content, transaction_id = fingerprint(data), str(data.transaction_id)
    copied = _copies_open_debit(state, data, transaction_id)
    if not (copied or isinstance(data, _CLOSING_COMMANDS)):
        too_old = age_problem(epoch_ms(command.time), now_ms)
        if too_old is not None:
            return _one(_unremembered(command, content, now, "REQUEST_EXPIRED", too_old))
    remembered = lookup(state, transaction_id, now_ms)
    if remembered is not None and remembered.fingerprint == content:
        return _again(state, data, remembered, now_ms)
    if copied and remembered is None:
        return Decision(repeats=1)  # its debit's record has left the memory; the debit stands, nothing is new
    if remembered is not None or transaction_id in state.player.open_wagers:
        message = f"transaction {transaction_id} was already used with other content"
        return _one(_unremembered(command, content, now, "DUPLICATE_CONFLICT", message))
    common = {
        "transaction_id": data.transaction_id,
        "player_id": data.player_id,
        "recorded_at": now,
        "command_fingerprint": content,
    }
    if isinstance(data, PlaceWager) and lookup(state, str(data.settlement_id), now_ms) is not None:
        message = f"settlement {data.settlement_id} was already used"
        return _one(_unremembered(command, content, now, "DUPLICATE_CONFLICT", message))
    if type(data) in _WAGER_RULES:
        debit_entry = lookup(state, str(data.wager_id), now_ms)
        outcome = _WAGER_RULES[type(data)](state, data, now_ms, common, debit_entry, awards)
    else:
        outcome = _RULES[type(data)](state, data, now_ms, common)
    if isinstance(outcome, rules.Rejection):
        outcome = _rejection(state, data, common, outcome)
    outcomes = outcome if isinstance(outcome, tuple) else (outcome,)
    return Decision(events=tuple(_wrap(command, each, _remembered_id(data, each, now_ms)) for each in outcomes))


def _one(event: Envelope[Any]) -> Decision:
    return Decision(events=(event,))


def _again(state: WalletState, data: CommandData, remembered: Any, now_ms: int) -> Decision:
    """A repeat: the very facts of the first time named again, in their order (an accepted PlaceWager wrote its
    debit, the credit of a remainder it stranded, and its settlement; a closing command the credits it made)."""
    facts = [remembered.event_id]
    if remembered.event_type != CommandRejected.TYPE:
        for game in sorted(state.player.remainders):
            credited = lookup(state, str(remainders.credit_id(data.transaction_id, game)), now_ms)
            if credited is not None:
                facts.append(credited.event_id)
    if isinstance(data, PlaceWager) and remembered.event_type != CommandRejected.TYPE:
        settled = lookup(state, str(data.settlement_id), now_ms)
        invariant(settled is not None, "an accepted place-wager's settlement is remembered with its debit")
        facts.append(settled.event_id)
    return Decision(repeats=1, repeated=tuple(facts))


def _copies_open_debit(state: WalletState, data: CommandData, transaction_id: str) -> bool:
    """Whether a wager command is a copy of the one that opened a wager still open (the spin sends it again for a
    repeat of its request in flight), judged on what the open wager keeps: never refused by age, since a refusal would
    read to the spin as the wager's own and leave the debit open; the open wager, not time, keeps it from a second
    debit."""
    if not isinstance(data, (DebitWager, PlaceWager)):
        return False
    wager = state.player.open_wagers.get(transaction_id)
    return wager is not None and (wager.currency, wager.amount_minor, wager.game) == (
        data.currency,
        data.amount_minor,
        data.game,
    )


def _another_operators(state: WalletState, data: CommandData) -> bool:
    """Whether the command is another operator's than the account's (a cashier command bound to it, a wager under
    its token). The plain cashier's commands and those naming no operator are not refused here."""
    owner, acting = state.player.operator_id, getattr(data, "operator_id", None)
    if owner is None or acting is None or acting == owner:
        return False
    return isinstance(data, (*_CASHIER_COMMANDS, DebitWager, PlaceWager))


def age_problem(command_ms: int, now_ms: int) -> str | None:
    """Why a command that opens something is too old or too far ahead to be decided (None: it is in time)."""
    if now_ms - command_ms > DEDUP_WINDOW_MS:
        return f"the command is {now_ms - command_ms} ms old, more than the {DEDUP_WINDOW_MS} ms window"
    if command_ms - now_ms > CLOCK_SKEW_MS:
        return f"the command is dated {command_ms - now_ms} ms in the future, more than {CLOCK_SKEW_MS} ms of skew"
    return None


def _wager_id(data: CommandData) -> uuid.UUID | None:
    if isinstance(data, (DebitWager, PlaceWager)):
        return data.transaction_id
    return getattr(data, "wager_id", None)


def _rejection(
    state: WalletState, data: CommandData, common: dict[str, Any], refusal: rules.Rejection
) -> CommandRejected:
    currency = refusal.currency or getattr(data, "currency", None)
    return CommandRejected(
        **common,
        command_type=data.TYPE,
        code=refusal.code,
        message=refusal.message,
        currency=currency,
        wager_id=_wager_id(data),
        balance_after_minor=state.player.balances_minor.get(currency) if currency else None,
    )


def _unremembered(command: Envelope[Any], content: str, now: datetime, code: str, message: str) -> Envelope[Any]:
    """A refusal that does not own the transaction id; its id names this very record (cause, time, content)."""
    data = command.data
    rejection = CommandRejected(
        transaction_id=data.transaction_id,
        player_id=data.player_id,
        recorded_at=now,
        command_fingerprint=content,
        command_type=data.TYPE,
        code=code,
        message=message,
        currency=getattr(data, "currency", None),
        wager_id=_wager_id(data),
    )
    event_id = derived_id("wallet", data.player_id, data.transaction_id, code, epoch_ms(now), content)
    return _wrap(command, rejection, event_id)


def _remembered_id(data: CommandData, outcome: EventData, now_ms: int) -> uuid.UUID:
    """Deterministic for a record processed again (same broker time); distinct when an id is used anew after its
    memory expired, which is a new command by the window's contract and so a new fact."""
    if isinstance(outcome, RemainderCredited):  # one a game, so the game tells them apart
        return derived_id("wallet", data.player_id, data.transaction_id, outcome.TYPE, now_ms, outcome.game)
    return derived_id("wallet", data.player_id, data.transaction_id, outcome.TYPE, now_ms)


def _wrap(command: Envelope[Any], data: EventData, event_id: uuid.UUID) -> Envelope[Any]:
    cause = str(command.id)
    return envelope(
        data,
        source=SOURCE,
        time=data.recorded_at,
        id=event_id,
        correlationid=command.correlationid or cause,
        causationid=cause,
    )
