"""The spin's wager commands for a seamless operator's player, as calls decided: a wager is a bet, its settlement the
round's one win, a refund a rollback. A command repeated is a repeat; its id reused with other content, a conflict."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from shared.decision import Decision, Refusal
from shared.events.envelope import Envelope, epoch_ms
from shared.events.seamless import SeamlessBetDecided, SeamlessRollbackDecided, SeamlessWinDecided
from shared.events.wallet import DebitWager, PlaceWager, RefundWager, SettleWager
from shared.operators import SeamlessWallet

from services.seamless_saga.core.emit import fact, of_round
from services.seamless_saga.core.state import Phase, Round, SeamlessBook

# The wallet's own age rule: a wager older than the de-duplication window may repeat one this book has forgotten.
from services.wallet.core.decide import age_problem
from services.wallet.core.fingerprint import fingerprint
from services.wallet.core.proofs import Awards, unproven
from services.wallet.core.remainders import carried_problem
from services.wallet.core.state import PlayerState


def bet(book: SeamlessBook, command: Envelope[Any], wallet: SeamlessWallet | None, now: datetime) -> Decision:
    """A DebitWager or PlaceWager: the bet to make, answered by `now + bet_timeout` or rolled back."""
    data: DebitWager | PlaceWager = command.data
    content = fingerprint(data)
    if problem := age_problem(epoch_ms(command.time), epoch_ms(now)):
        return _refused("REQUEST_EXPIRED", problem)
    known = book.rounds.get(str(data.transaction_id))
    if known is not None:
        return _again(known.fingerprint == content, f"wager {data.transaction_id}")
    assert wallet is not None, f"operator {data.operator_id} holds no seamless wallet: its wager is the ledger's"
    # The wallet's own check of a stranded remainder, against no record: the operator's wallet keeps none of them.
    if problem := carried_problem(PlayerState(data.player_id), data):
        return _refused("REMAINDER_MISMATCH", problem)
    placed = isinstance(data, PlaceWager)
    decided = SeamlessBetDecided(
        wager_id=data.transaction_id,
        player_id=data.player_id,
        operator_id=data.operator_id,
        recorded_at=now,
        amount_minor=data.amount_minor,
        currency=data.currency,
        game=data.game,
        answer_by=now + timedelta(milliseconds=wallet.bet_timeout_ms),
        command_fingerprint=content,
        settlement_id=data.settlement_id if placed else None,
        win_minor=data.house_win_minor if placed else None,
        remainder_stranded_micro=data.remainder_before_micro if data.remainder_stranded else None,
    )
    return Decision(events=(fact(decided, now, caused_by=str(command.id)),))


def win(
    book: SeamlessBook, command: Envelope[Any], wallet: SeamlessWallet | None, awards: Awards, now: datetime
) -> Decision:
    """A SettleWager of an accepted bet: the round's one win, its pool share proven as the ledger proves it."""
    data: SettleWager = command.data
    round_ = book.rounds.get(str(data.wager_id))
    if round_ is None or wallet is None:
        return _refused("WAGER_NOT_FOUND", f"no seamless wager {data.wager_id}")
    content = fingerprint(data)
    if round_.settle_fingerprint is not None:
        same = round_.settle_fingerprint == content and round_.settlement_id == str(data.transaction_id)
        return _again(same, f"the settlement of wager {data.wager_id}")
    if round_.phase is not Phase.ACCEPTED:
        return _refused("WAGER_ALREADY_CLOSED", f"wager {data.wager_id} is {round_.phase}, not accepted")
    if data.currency != round_.currency:
        return _refused("CURRENCY_MISMATCH", f"wager {data.wager_id} is in {round_.currency}")
    if problem := unproven(data, round_.amount_minor, awards):
        return _refused("JACKPOT_UNPROVEN", problem[:500])
    return Decision(events=(win_decided(round_, wallet, now, data, content, str(command.id)),))


def win_decided(
    round_: Round, wallet: SeamlessWallet, now: datetime, settle: SettleWager | None, content: str, cause: str
) -> Envelope[Any]:
    """The win of a round: of its SettleWager, or (`settle` None) the one its PlaceWager carried, with the credit of the
    remainder its wager stranded: the one settlement a round has, so the player's remainder rides in it."""
    house_minor = settle.house_win_minor if settle else round_.house_win_minor
    jackpot_minor = settle.jackpot_win_minor if settle else 0
    assert house_minor is not None
    credit_minor = round_.remainder_credit_minor
    decided = SeamlessWinDecided(
        **of_round(round_, now),
        settlement_id=settle.transaction_id if settle else round_.settlement_id,
        amount_minor=house_minor + jackpot_minor + (credit_minor or 0),
        house_win_minor=house_minor,
        jackpot_win_minor=jackpot_minor,
        currency=round_.currency,
        give_up_at=now + timedelta(seconds=wallet.win_retry_s),
        command_fingerprint=content,
        remainder_stranded_micro=round_.remainder_stranded_micro,
        remainder_credit_minor=credit_minor,
    )
    return fact(decided, now, caused_by=cause)


def refund(book: SeamlessBook, command: Envelope[Any], now: datetime) -> Decision:
    """A RefundWager of an accepted bet (the spin cannot complete it): the bet is rolled back."""
    data: RefundWager = command.data
    round_ = book.rounds.get(str(data.wager_id))
    if round_ is None:
        return _refused("WAGER_NOT_FOUND", f"no seamless wager {data.wager_id}")
    if round_.phase in (Phase.ROLLING_BACK, Phase.ROLLED_BACK):
        return Decision(repeats=1)
    if round_.phase is not Phase.ACCEPTED:
        return _refused("WAGER_ALREADY_CLOSED", f"wager {data.wager_id} is {round_.phase}, not accepted")
    return Decision(events=(rollback_decided(round_, now, data.reason, str(command.id)),))


def rollback_decided(round_: Round, now: datetime, reason: str, cause: str | None) -> Envelope[Any]:
    decided = SeamlessRollbackDecided(
        **of_round(round_, now),
        currency=round_.currency,
        reason=reason[:500],
    )
    return fact(decided, now, caused_by=cause)


def _again(same: bool, what: str) -> Decision:
    if same:
        return Decision(repeats=1)
    return _refused("DUPLICATE_CONFLICT", f"{what} was already used with other content")


def _refused(code: str, reason: str) -> Decision:
    return Decision(dead_letters=(Refusal(code, reason),))
