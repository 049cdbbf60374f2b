"""Double-entry postings of each wallet fact, in micro-units; every list sums to zero (one currency per event)."""

from __future__ import annotations

from shared.events.wallet import CASHIER, HOUSE, Posting, jackpot_account, player_account, postings_balanced
from shared.invariant import invariant
from shared.money import minor_to_micro


def _balanced(*pairs: tuple[str, int]) -> tuple[Posting, ...]:
    postings = tuple(Posting(account=account, amount_micro=amount) for account, amount in pairs)
    invariant(postings_balanced(postings), "postings must sum to zero")
    return postings


def deposit(player_id: str, amount_minor: int) -> tuple[Posting, ...]:
    amount = minor_to_micro(amount_minor)
    return _balanced((CASHIER, -amount), (player_account(player_id), amount))


def withdrawal(player_id: str, amount_minor: int) -> tuple[Posting, ...]:
    amount = minor_to_micro(amount_minor)
    return _balanced((player_account(player_id), -amount), (CASHIER, amount))


def wager_debit(player_id: str, amount_minor: int) -> tuple[Posting, ...]:
    amount = minor_to_micro(amount_minor)
    return _balanced((player_account(player_id), -amount), (HOUSE, amount))


def wager_refund(player_id: str, amount_minor: int) -> tuple[Posting, ...]:
    amount = minor_to_micro(amount_minor)
    return _balanced((HOUSE, -amount), (player_account(player_id), amount))


def remainder_credit(player_id: str, amount_minor: int) -> tuple[Posting, ...]:
    amount = minor_to_micro(amount_minor)
    return _balanced((HOUSE, -amount), (player_account(player_id), amount))


def settlement(
    player_id: str,
    network_id: str,
    house_win_minor: int,
    jackpot_win_minor: int,
    breakage_micro: int,
    contribution_micro: int,
) -> tuple[Posting, ...]:
    """The wager's contribution and breakage move house -> jackpot liability; the win comes from both."""
    house_win = minor_to_micro(house_win_minor)
    jackpot_win = minor_to_micro(jackpot_win_minor)
    return _balanced(
        (player_account(player_id), house_win + jackpot_win),
        (HOUSE, -(house_win + breakage_micro + contribution_micro)),
        (jackpot_account(network_id), contribution_micro + breakage_micro - jackpot_win),
    )


def player_delta_minor(player_id: str, postings: tuple[Posting, ...]) -> int:
    """The change of the player's balance in whole minor units (player postings are always whole)."""
    account = player_account(player_id)
    total_micro = sum(posting.amount_micro for posting in postings if posting.account == account)
    whole_minor, remainder_micro = divmod(total_micro, 1_000_000)
    invariant(remainder_micro == 0, "a player posting must be whole minor units")
    return whole_minor
