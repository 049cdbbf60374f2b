"""Deposit and loss limits per UTC calendar day, ISO week and month; decreases at once, increases after 24 h."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from functools import lru_cache

from services.wallet.core.state import LimitRule, PlayerState, Usage, limit_key

PERIODS = ("day", "week", "month")
KINDS = ("deposit", "loss")
# GLI-19 A.3.7: a change that loosens a limit takes effect only after a cooling-off period.
INCREASE_DELAY_MS = 24 * 60 * 60 * 1000
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def period_key(period: str, now_ms: int) -> str:
    """The calendar period that contains `now_ms`, as "YYYY-MM-DD", "YYYY-Www" or "YYYY-MM"."""
    return _period_key(period, now_ms // _DAY_MS)


_DAY_MS = 24 * 60 * 60 * 1000


@lru_cache(maxsize=64)
def _period_key(period: str, day_index: int) -> str:
    # Periods are whole UTC days, so the day number decides the key; cached because every command asks for it.
    moment = _EPOCH + timedelta(days=day_index)
    if period == "day":
        return moment.strftime("%Y-%m-%d")
    if period == "week":
        year, week, _ = moment.isocalendar()
        return f"{year}-W{week:02d}"
    return moment.strftime("%Y-%m")


def effective_limit(rule: LimitRule | None, now_ms: int) -> int | None:
    """The limit in force at `now_ms` (None: no limit)."""
    if rule is None:
        return None
    if rule.pending_effective_ms is not None and now_ms >= rule.pending_effective_ms:
        return rule.pending_amount_minor
    return rule.amount_minor


def is_increase(current_minor: int | None, new_minor: int | None) -> bool:
    """Loosening: removing a limit, or raising it. Setting a first limit or lowering one is a decrease."""
    if new_minor is None:
        return current_minor is not None
    return current_minor is not None and new_minor > current_minor


def used(player: PlayerState, currency: str, kind: str, period: str, now_ms: int) -> int:
    """What already counts against the limit in the current period."""
    usage = player.usage.get(limit_key(currency, kind, period))
    if usage is None or usage.period_key != period_key(period, now_ms):
        return 0
    return usage.used_minor


def first_exceeded(player: PlayerState, currency: str, kind: str, amount_minor: int, now_ms: int) -> str | None:
    """The first period whose limit `amount_minor` more would exceed, or None when every limit allows it."""
    for period in PERIODS:
        limit = effective_limit(player.limits.get(limit_key(currency, kind, period)), now_ms)
        if limit is not None and used(player, currency, kind, period, now_ms) + amount_minor > limit:
            return period
    return None


def with_usage(player: PlayerState, currency: str, kind: str, delta_minor: int, now_ms: int) -> dict[str, Usage]:
    """The usage map after counting `delta_minor` in every period of `kind` (a win counts as a negative loss)."""
    usage = dict(player.usage)
    for period in PERIODS:
        key = limit_key(currency, kind, period)
        before = used(player, currency, kind, period, now_ms)
        usage[key] = Usage(period_key(period, now_ms), before + delta_minor)
    return usage


def rule_after(rule: LimitRule | None, amount_minor: int | None, effective_ms: int, now_ms: int) -> LimitRule:
    """The rule after a LimitSet effective at `effective_ms` (now: replaces at once; later: waits as pending)."""
    current = effective_limit(rule, now_ms)
    if effective_ms <= now_ms:
        return LimitRule(amount_minor=amount_minor)
    return LimitRule(amount_minor=current, pending_amount_minor=amount_minor, pending_effective_ms=effective_ms)
