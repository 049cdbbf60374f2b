"""The seamless saga's core under test: `SAGA.given(events).when(message, now).then(events)` (tests/support/gwt.py),
with one seamless operator (`op-s`, hub88, 5 s to answer a bet, a day to acknowledge a win), one ledger operator, the
record module's proof check and a back-off draw of 0 (the shortest wait), and builders of the spin's commands and the
wallet's outcomes."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

from seamless.port import Answered, NoAnswer, NoAnswerReason, Status
from shared import records
from shared.decision import Message
from shared.events import envelope
from shared.events.envelope import Envelope, epoch_ms
from shared.events.wallet import DebitWager, PlaceWager, RefundWager, SettleWager
from shared.operators import Operator, SeamlessWallet, seamless_wallet_of

from services.seamless_saga.core.decide import SeamlessCore
from services.seamless_saga.core.messages import CallOutcome, Tick
from services.seamless_saga.core.state import SeamlessBook
from tests.support.gwt import Core

OPERATOR, LEDGER_OPERATOR = "op-s", "op-l"
WALLET = SeamlessWallet("http://wallet.op-s.test", "hub88", "reelstream-1", "/keys/op-s.pem", 1_000, 5_000, 86_400)
OPERATORS = (Operator(OPERATOR, "seamless", WALLET), Operator(LEDGER_OPERATOR))
PLAYER = "player-1"
T0 = datetime(2026, 12, 1, 12, 0, 0, tzinfo=timezone.utc)

CORE = SeamlessCore(lambda: 0.0, lambda operator_id: seamless_wallet_of(operator_id, OPERATORS))


def _message(payload: Any, now: datetime) -> Any:
    if isinstance(payload, (CallOutcome, Tick, Message)):
        return payload
    return Message(payload, epoch_ms(now), proof=records.checked_awards(payload.data))


def _evolve(book: SeamlessBook, event: Envelope[Any], raw: bytes | None = None) -> SeamlessBook:
    return CORE.evolve(book, event)


SAGA = Core(
    lambda: CORE.new_state(0), _evolve, lambda book, payload, now: CORE.decide(book, _message(payload, now), now)
)


def wager_id(n: int) -> uuid.UUID:
    return uuid.UUID(int=n)


def sent(data: Any, now: datetime = T0) -> Envelope[Any]:
    return envelope(data, source="test", time=now)


def debit(n: int, stake_minor: int = 100, operator_id: str = OPERATOR, player_id: str = PLAYER) -> Envelope[Any]:
    return sent(
        DebitWager(
            transaction_id=wager_id(n),
            player_id=player_id,
            amount_minor=stake_minor,
            currency="EUR",
            game="rising-joker",
            operator_id=operator_id,
        )
    )


def place(n: int, stake_minor: int = 100, win_minor: int = 0) -> Envelope[Any]:
    return sent(
        PlaceWager(
            transaction_id=wager_id(n),
            player_id=PLAYER,
            amount_minor=stake_minor,
            currency="EUR",
            game="rising-joker",
            operator_id=OPERATOR,
            settlement_id=wager_id(n + 1000),
            house_win_minor=win_minor,
            breakage_micro=0,
            contribution_micro=0,
            network_id="net-1",
        )
    )


def settle(
    n: int,
    house_win_minor: int = 0,
    jackpot_win_minor: int = 0,
    proofs=None,
    player_id: str = PLAYER,
    operator_id: str | None = OPERATOR,
) -> Envelope[Any]:
    return sent(
        SettleWager(
            transaction_id=wager_id(n + 1000),
            player_id=player_id,
            wager_id=wager_id(n),
            currency="EUR",
            house_win_minor=house_win_minor,
            jackpot_win_minor=jackpot_win_minor,
            breakage_micro=0,
            contribution_micro=0,
            network_id="net-1",
            jackpot_proofs=proofs,
            operator_id=operator_id,
        )
    )


def refund(n: int, operator_id: str | None = OPERATOR) -> Envelope[Any]:
    return sent(
        RefundWager(
            transaction_id=wager_id(n + 2000),
            player_id=PLAYER,
            wager_id=wager_id(n),
            currency="EUR",
            reason="spin aborted",
            operator_id=operator_id,
        )
    )


def answer(
    call: Envelope[Any], status: Status = Status.OK, balance_minor: int | None = 900, attempt: int = 1
) -> CallOutcome:
    """The operator's answer to attempt `attempt` of the call `call` (its *Decided event) decided."""
    answered = Answered(request_id=call.id, status=status, balance_minor=balance_minor, operator_status=status.value)
    return CallOutcome(str(call.id), attempt, answered)


def no_answer(call: Envelope[Any], reason: NoAnswerReason = NoAnswerReason.TIMEOUT, attempt: int = 1) -> CallOutcome:
    return CallOutcome(str(call.id), attempt, NoAnswer(request_id=call.id, reason=reason))


def at(ms: int) -> datetime:
    return T0 + timedelta(milliseconds=ms)
