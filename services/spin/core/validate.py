"""The business checks of a new spin request: who, which game, which stake, which currency, which player state."""

from __future__ import annotations

from services.spin.core import evolve as fold
from services.spin.core.book import SPIN_RATE, SpinBook, SpinRate
from services.spin.core.effects import Context
from shared.events.spin import SpinRequested


def rate_limited(book: SpinBook, player_id: str, now_ms: int, rate: SpinRate = SPIN_RATE) -> bool:
    recent = book.accepted_at.get(player_id)
    return recent is not None and len(recent) >= rate.spins and now_ms - recent[0] < rate.window_ms


def refusal(
    book: SpinBook, ctx: Context, data: SpinRequested, now_ms: int, bound: str | None = None
) -> tuple[str, str] | None:
    """(code, message) of the first check the request fails, or None when a wager may be debited. `bound`: the
    operator whose session key signed the token (ctx.token_operator), None for a key of no operator."""
    problem = ctx.token_problem(data.session_token, data.player_id, now_ms)
    if problem is not None:
        return "UNAUTHENTICATED", f"session token {problem}"
    if bound is not None and data.operator_id not in (None, bound):
        return "UNAUTHENTICATED", f"the session token was issued by operator {bound}, not {data.operator_id}"
    engine = ctx.catalog.current(data.game)
    if engine is None:
        return "UNKNOWN_GAME", f"no game {data.game!r}"
    if data.currency != engine.currency:
        return "CURRENCY_MISMATCH", f"{data.game} is played in {engine.currency}, not {data.currency}"
    if data.stake_minor not in engine.stakes_minor:
        return (
            "INVALID_STAKE",
            f"{data.stake_minor} is not a stake of {data.game} ({', '.join(map(str, engine.stakes_minor))})",
        )
    if rate_limited(book, data.player_id, now_ms):
        return "RATE_LIMITED", f"{SPIN_RATE.spins} spins of this player within {SPIN_RATE.window_ms // 1000} s already"
    if not engine.initial_state():
        return None  # a stateless game: spins of one player may overlap
    if book.in_flight.get((data.player_id, data.game)):
        return "SPIN_IN_PROGRESS", f"a {data.game} spin of this player is still in progress"
    locked = engine.locked_stake(fold.game_state(book, ctx.catalog, data.player_id, data.game))
    if locked is not None and locked != data.stake_minor and not data.forfeit_bonus_ring:
        return "STAKE_LOCKED", (
            f"bonus symbols earned at stake {locked} are on the bonus ring: spin at {locked}, "
            "or send forfeit_bonus_ring=true to clear them"
        )
    return None
