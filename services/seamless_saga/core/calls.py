"""The port call (seamless/port.py) a round owes the operator's wallet: built from the round alone, so an attempt and
its retries after a restart are the same request (the call id is the request and the transaction id)."""

from __future__ import annotations

import uuid

from seamless.port import BetCall, MoneyCall, RollbackCall, WinCall

from services.seamless_saga.core.state import OpenCall, Round


def call_of(round_: Round, owed: OpenCall) -> MoneyCall:
    common = {"request_id": uuid.UUID(owed.call_id), "transaction_id": uuid.UUID(owed.call_id)}
    common |= {"player_id": round_.player_id, "round_id": round_.wager_id, "game": round_.game}
    if owed.kind == "bet":
        return BetCall(**common, currency=round_.currency, amount_minor=round_.amount_minor)
    bet_id = uuid.UUID(round_.bet_call_id)
    if owed.kind == "win":
        amount_minor = win_minor(round_)
        return WinCall(**common, currency=round_.currency, bet_transaction_id=bet_id, amount_minor=amount_minor)
    assert owed.kind == "rollback", owed.kind
    return RollbackCall(**common, currency=round_.currency, bet_transaction_id=bet_id)


def win_minor(round_: Round) -> int:
    """The round's one win: the house's and the pool's shares together, and the credit of a remainder it stranded."""
    assert round_.house_win_minor is not None
    return round_.house_win_minor + round_.jackpot_win_minor + (round_.remainder_credit_minor or 0)
