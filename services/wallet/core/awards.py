"""The most a game's model can award per unit of stake (its par sheet's theoretical maximum, fixed parts; jackpot pool
shares are paid apart): a settlement above it for the debit it settles is refused, whoever signed it."""

from __future__ import annotations

# × stake, from docs/math/<game>/parsheet.json (a test keeps these equal); None: the model has no finite maximum
# (Stjernestøv's cascades can refill the board any number of times), so only the other checks bound its wins.
MAX_AWARD_X_STAKE: dict[str, int | None] = {"rising-joker": 5000, "stjernestoev": None}


def award_problem(game: str | None, stake_minor: int, house_win_minor: int) -> str | None:
    """Why `house_win_minor` on a `stake_minor` wager of `game` cannot be a real award, or None. Unknown games and
    forgotten debits are bounded by the largest finite maximum only when every game has one."""
    bounds = [MAX_AWARD_X_STAKE[game]] if game in MAX_AWARD_X_STAKE else list(MAX_AWARD_X_STAKE.values())
    if any(bound is None for bound in bounds):
        return None
    most = max(bounds) * stake_minor
    if house_win_minor > most:
        return f"a win of {house_win_minor} is above the maximum award {most} for a stake of {stake_minor}"
    return None


def above_max_award(wager, house_win_minor: int) -> str | None:
    """`award_problem` for an open wager (state.OpenWager; its game "" when a snapshot from before wagers named their
    game held it and no debit named one either)."""
    return award_problem(wager.game or None, wager.amount_minor, house_win_minor)
