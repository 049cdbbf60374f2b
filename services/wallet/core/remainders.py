"""Each player's outstanding sub-cent remainders: what a wager may carry in, and the house's credit of one that can
no longer be completed (rounded up to one cent, in the transaction of the command that strands it)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from shared.events.envelope import derived_id
from shared.events.wallet import DebitWager, PlaceWager, RemainderCredited
from shared.remainders import credit_minor

from services.wallet.core import postings
from services.wallet.core.state import PlayerState, Remainder


def carried_problem(player: PlayerState, command: DebitWager | PlaceWager) -> str | None:
    """Why a wager's view of the player's remainder cannot be taken, else None. A wallet that has no record of the
    game's remainder (a history from before it kept them) takes the spin's."""
    before, record = command.remainder_before_micro, player.remainders.get(command.game)
    if before is None:
        return "a stranded remainder needs remainder_before_micro" if command.remainder_stranded else None
    if command.remainder_stranded and before == 0:
        return "no remainder is outstanding to strand"
    if record is None:
        return None
    if record.held_by is not None:
        return f"wager {record.held_by} of {command.game} is open and carries the remainder"
    if record.micro != before:
        return f"the player's remainder in {command.game} is {record.micro} micro, not {before}"
    return None


def credit_id(transaction_id: uuid.UUID, game: str) -> uuid.UUID:
    """The transaction id of a credit: derived from the command's, so a repeat finds it in the memory."""
    return derived_id(transaction_id, "remainder-credit", game)


def credit(
    player: PlayerState, record: Remainder, game: str, reason: str, common: dict[str, Any], balance_minor: int
) -> RemainderCredited:
    """The house credits `record`'s remainder rounded up to whole minor units, onto `balance_minor` before it."""
    amount_minor = credit_minor(record.micro)
    return RemainderCredited(
        **{**common, "transaction_id": credit_id(common["transaction_id"], game)},
        currency=record.currency,
        game=game,
        remainder_micro=record.micro,
        amount_minor=amount_minor,
        reason=reason,
        wager_id=record.wager_id,
        balance_after_minor=balance_minor + amount_minor,
        postings=postings.remainder_credit(player.player_id, amount_minor),
    )


def stranding_reason(player: PlayerState, excluded: bool) -> str | None:
    """Why any remainder the player still has can no longer be completed (None: it still can)."""
    if player.closed:
        return "closure"
    return "self-exclusion" if excluded else None


def credits_now(
    player: PlayerState, reason: str, common: dict[str, Any], balances: dict[str, int]
) -> list[RemainderCredited]:
    """Every outstanding remainder no open wager carries, credited (one event per game, by game); `balances`: the
    balances before them, advanced in place. A remainder an open wager carries is credited when that wager closes."""
    credits = []
    for game in sorted(player.remainders):
        record = player.remainders[game]
        if record.micro > 0 and record.held_by is None:
            credits.append(credit(player, record, game, reason, common, balances[record.currency]))
            balances[record.currency] += credits[-1].amount_minor
    return credits


def after_debit(
    player: PlayerState, game: str, currency: str, wager_id: str, before: int | None
) -> Mapping[str, Remainder]:
    """The remainders once a wager of `game` is debited (`before`: the remainder it carries in, None: none)."""
    if before is None:
        return player.remainders
    known = player.remainders.get(game)
    record = Remainder(currency, before, known.wager_id if known else None, held_by=wager_id)
    return {**player.remainders, game: record}


def after_close(
    player: PlayerState, game: str, currency: str, wager_id: str, after: int | None
) -> Mapping[str, Remainder]:
    """The remainders once a wager of `game` is settled (`after`: the remainder it leaves; None on a refund or a game
    that keeps none)."""
    known = player.remainders.get(game)
    if not game:
        return player.remainders  # a wager debited before wagers named their game
    if after is not None:
        record = Remainder(currency, after, wager_id)
    elif known is not None and known.held_by == wager_id:
        record = replace(known, held_by=None)  # refunded: the spin never happened, its remainder is what it was
    else:
        return player.remainders
    return {**player.remainders, game: record}


def after_credit(player: PlayerState, data: RemainderCredited) -> Mapping[str, Remainder]:
    known = player.remainders.get(data.game)
    wager_id = str(data.wager_id) if data.wager_id is not None else None
    held_by = known.held_by if known is not None else None
    record = Remainder(data.currency, 0, wager_id, held_by)
    return {**player.remainders, data.game: record}
