"""What reelstream asked of one operator's wallet, from wallet.seamless: every bet, win and rollback it decided, with
the last answer it got, for reconciliation (seamless/reconcile.py). Its own fold, since the saga's book forgets a
closed round after the de-duplication window and keeps no answer per call; this one forgets nothing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from seamless.reconcile import NO_ANSWER, Transaction
from shared.events.envelope import Envelope
from shared.events.seamless import (
    SeamlessAnswerRecorded,
    SeamlessBetDecided,
    SeamlessRollbackDecided,
    SeamlessRolledBack,
    SeamlessWinDecided,
)


def asked(events: Iterable[Envelope[Any]], operator_id: str) -> list[Transaction]:
    """The transactions reelstream decided for `operator_id`'s wallet, in the order it decided them."""
    calls: dict[str, Transaction] = {}
    bet_of_wager: dict[str, str] = {}
    for event in events:
        data = event.data
        if data.operator_id != operator_id:
            continue
        call_id, wager_id = str(event.id), str(data.wager_id)
        if isinstance(data, SeamlessBetDecided) and wager_id not in bet_of_wager:
            bet_of_wager[wager_id] = call_id
            calls[call_id] = _call(data, call_id, "bet", data.amount_minor, None)
        elif isinstance(data, (SeamlessWinDecided, SeamlessRollbackDecided)) and call_id not in calls:
            bet = calls[bet_of_wager[wager_id]]
            amount_minor = data.amount_minor if isinstance(data, SeamlessWinDecided) else bet.amount_minor
            kind = "win" if isinstance(data, SeamlessWinDecided) else "rollback"
            calls[call_id] = _call(data, call_id, kind, amount_minor, bet.transaction_id)
        elif isinstance(data, SeamlessAnswerRecorded) and data.status != NO_ANSWER:
            calls[str(data.call_id)] = replace(calls[str(data.call_id)], status=data.status)
        elif isinstance(data, SeamlessRolledBack):
            bet_id = bet_of_wager[wager_id]
            calls[bet_id] = replace(calls[bet_id], rolled_back=True)
    return list(calls.values())


def _call(data: Any, call_id: str, kind: str, amount_minor: int, bet_id: str | None) -> Transaction:
    return Transaction(
        transaction_id=call_id,
        kind=kind,
        player_id=data.player_id,
        currency=data.currency,
        amount_minor=amount_minor,
        round_id=str(data.wager_id),
        bet_transaction_id=bet_id,
        status=NO_ANSWER,
    )
