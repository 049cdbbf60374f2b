"""The business rules of each wallet command: an event payload when accepted, a Rejection (code, message) when not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.wallet.core.awards import above_max_award, award_problem
from services.wallet.core.proofs import Awards, unproven

from shared.events.wallet import (
    AccountClosed,
    CloseAccount,
    DebitWager,
    Deposit,
    Deposited,
    LimitSet,
    PlaceWager,
    RefundWager,
    RemainderCredited,
    SelfExclude,
    SelfExcluded,
    SetLimit,
    SettleWager,
    WagerDebited,
    WagerRefunded,
    WagerSettled,
    Withdraw,
    Withdrawn,
)
from shared.events.envelope import broker_time, epoch_ms
from shared.money import CURRENCIES, MICRO_PER_MINOR

from services.wallet.core import limits, postings, remainders
from services.wallet.core.state import PlayerState, Remainder, WalletState, limit_key

# A limit on everything: no single amount above 10^12 minor units (ten billion EUR) is plausible.
MAX_AMOUNT_MINOR = 10**12
_ADJECTIVE = {"day": "daily", "week": "weekly", "month": "monthly"}


@dataclass(frozen=True)
class Rejection:
    """A command a rule turns down: answered with a CommandRejected (code, message), never a dead letter."""

    code: str
    message: str
    currency: str | None = None


def _amount_refusal(amount_minor: int, currency: str, *, zero_allowed: bool = False) -> Rejection | None:
    if amount_minor < 0 or (amount_minor == 0 and not zero_allowed):
        return Rejection("INVALID_AMOUNT", f"amount {amount_minor} must be positive", currency)
    if amount_minor > MAX_AMOUNT_MINOR:
        return Rejection("INVALID_AMOUNT", f"amount {amount_minor} is above {MAX_AMOUNT_MINOR}", currency)
    if currency not in CURRENCIES:
        return Rejection("CURRENCY_MISMATCH", f"unknown currency {currency!r}", currency)
    return None


def is_excluded(player: PlayerState, now_ms: int) -> bool:
    return player.excluded_indefinitely or (player.excluded_until_ms is not None and now_ms < player.excluded_until_ms)


def deposit(state: WalletState, command: Deposit, now_ms: int, common: dict[str, Any]) -> Deposited | Rejection:
    player, currency, amount = state.player, command.currency, command.amount_minor
    if refusal := _amount_refusal(amount, currency):
        return refusal
    if player.closed:
        return Rejection("ACCOUNT_CLOSED", "the account is closed", currency)
    if is_excluded(player, now_ms):
        return Rejection("SELF_EXCLUDED", "the player is self-excluded", currency)
    if period := limits.first_exceeded(player, currency, "deposit", amount, now_ms):
        return Rejection("LIMIT_EXCEEDED", f"the {_ADJECTIVE[period]} deposit limit would be exceeded", currency)
    balance = player.balances_minor.get(currency, 0) + amount
    return Deposited(
        **common,
        currency=currency,
        amount_minor=amount,
        operator_id=command.operator_id,
        balance_after_minor=balance,
        postings=postings.deposit(player.player_id, amount),
    )


def withdraw(state: WalletState, command: Withdraw, now_ms: int, common: dict[str, Any]) -> Withdrawn | Rejection:
    player, currency, amount = state.player, command.currency, command.amount_minor
    if refusal := _amount_refusal(amount, currency):
        return refusal
    if currency not in player.balances_minor:
        return Rejection("ACCOUNT_NOT_FOUND", f"no {currency} account", currency)
    if amount > player.balances_minor[currency]:
        return Rejection("INSUFFICIENT_FUNDS", f"balance is below {amount}", currency)
    return Withdrawn(
        **common,
        currency=currency,
        amount_minor=amount,
        balance_after_minor=player.balances_minor[currency] - amount,
        postings=postings.withdrawal(player.player_id, amount),
    )


def _stake_refusal(player: PlayerState, currency: str, amount: int, now_ms: int) -> Rejection | None:
    """Whether a wager of `amount` may be taken: judged on the stake and the player's state only, never on an
    outcome (a loss limit counts the stake), so a player at a limit cannot keep only the winning spins."""
    if refusal := _amount_refusal(amount, currency):
        return refusal
    if player.closed:
        return Rejection("ACCOUNT_CLOSED", "the account is closed", currency)
    if is_excluded(player, now_ms):
        return Rejection("SELF_EXCLUDED", "the player is self-excluded", currency)
    if currency not in player.balances_minor:
        return Rejection("ACCOUNT_NOT_FOUND", f"no {currency} account", currency)
    if period := limits.first_exceeded(player, currency, "loss", amount, now_ms):
        return Rejection("LIMIT_EXCEEDED", f"the {_ADJECTIVE[period]} loss limit would be exceeded", currency)
    if amount > player.balances_minor[currency]:
        return Rejection("INSUFFICIENT_FUNDS", f"balance is below {amount}", currency)
    return None


def debit_wager(
    state: WalletState, command: DebitWager, now_ms: int, common: dict[str, Any]
) -> tuple[WagerDebited | RemainderCredited, ...] | Rejection:
    player, currency = state.player, command.currency
    if refusal := _wager_refusal(player, command, now_ms):
        return refusal
    return _debited(player, command, common, player.balances_minor[currency])


def _wager_refusal(player: PlayerState, command: DebitWager | PlaceWager, now_ms: int) -> Rejection | None:
    if refusal := _stake_refusal(player, command.currency, command.amount_minor, now_ms):
        return refusal
    if problem := remainders.carried_problem(player, command):
        return Rejection("REMAINDER_MISMATCH", problem, command.currency)
    return None


def _debited(
    player, command: DebitWager | PlaceWager, common: dict[str, Any], balance: int
) -> tuple[WagerDebited | RemainderCredited, ...]:
    """The stake taken (a DebitWager's or a PlaceWager's), from `balance` before it, and the credit of the remainder
    the wager strands (a stake that can never complete it)."""
    stake = command.amount_minor
    debited = WagerDebited(
        **common,
        currency=command.currency,
        amount_minor=stake,
        game=command.game,
        operator_id=command.operator_id,
        remainder_before_micro=command.remainder_before_micro,
        balance_after_minor=balance - stake,
        postings=postings.wager_debit(player.player_id, stake),
    )
    if not command.remainder_stranded:
        return (debited,)
    known = player.remainders.get(command.game)
    record = Remainder(command.currency, command.remainder_before_micro, known.wager_id if known else None)
    return debited, remainders.credit(player, record, command.game, "stake-change", common, balance - stake)


def _settled(
    player, command: SettleWager | PlaceWager, common: dict[str, Any], wager_id, jackpot_win: int, balance: int
) -> WagerSettled:
    """The settlement's postings and fact (a SettleWager's or a PlaceWager's), onto `balance` before it."""
    win = command.house_win_minor + jackpot_win
    return WagerSettled(
        **common,
        currency=command.currency,
        wager_id=wager_id,
        win_minor=win,
        house_win_minor=command.house_win_minor,
        jackpot_win_minor=jackpot_win,
        breakage_micro=command.breakage_micro,
        contribution_micro=command.contribution_micro,
        network_id=command.network_id,
        remainder_after_micro=command.remainder_after_micro,
        balance_after_minor=balance + win,
        postings=postings.settlement(
            player.player_id,
            command.network_id,
            command.house_win_minor,
            jackpot_win,
            command.breakage_micro,
            command.contribution_micro,
        ),
    )


def place_wager(
    state: WalletState, command: PlaceWager, now_ms: int, common: dict[str, Any]
) -> tuple[WagerDebited | RemainderCredited | WagerSettled, ...] | Rejection:
    """A whole spin without a pool share: the debit's checks on the stake decide; the outcome's amounts are only
    checked for what they must be (a malformed command is refused whatever the player's state)."""
    player, currency = state.player, command.currency
    if refusal := _outcome_refusal(command, currency, command.amount_minor):
        return refusal
    if refusal := _wager_refusal(player, command, now_ms):
        return refusal
    taken = _debited(player, command, common, player.balances_minor[currency])
    common = {**common, "transaction_id": command.settlement_id}
    return *taken, _settled(player, command, common, command.transaction_id, 0, taken[-1].balance_after_minor)


def _outcome_refusal(command: PlaceWager, currency: str, stake: int) -> Rejection | None:
    """What makes a PlaceWager's outcome impossible (the same bounds a SettleWager meets), else None."""
    if refusal := _amount_refusal(command.house_win_minor, currency, zero_allowed=True):
        return refusal
    if command.settlement_id == command.transaction_id:
        return Rejection("INVALID_REQUEST", "the settlement needs its own transaction id", currency)
    if command.contribution_micro > stake * MICRO_PER_MINOR:
        return Rejection("INVALID_AMOUNT", "the contribution is larger than the wager", currency)
    if above := award_problem(command.game, stake, command.house_win_minor):
        return Rejection("INVALID_AMOUNT", above, currency)
    return None


def _closed_wager_refusal(state: WalletState, wager_id: str, currency: str, memory_entry) -> Rejection:
    """Not open: already settled or refunded when its debit is still remembered as accepted, else unknown."""
    if memory_entry is not None and memory_entry.event_type == WagerDebited.TYPE:
        return Rejection("WAGER_ALREADY_CLOSED", f"wager {wager_id} was already settled or refunded", currency)
    return Rejection("WAGER_NOT_FOUND", f"no open wager {wager_id}", currency)


def settle_wager(
    state: WalletState, command: SettleWager, now_ms: int, common: dict[str, Any], debit_entry, awards: Awards
) -> tuple[WagerSettled | RemainderCredited, ...] | Rejection:
    """`awards`: each JackpotWon the settlement carries as the loop checked it (services/wallet/core/proofs.py)."""
    currency, wager_id = command.currency, str(command.wager_id)
    for name in ("house_win_minor", "jackpot_win_minor"):
        if refusal := _amount_refusal(getattr(command, name), currency, zero_allowed=True):
            return refusal
    if command.breakage_micro < 0 or command.contribution_micro < 0:
        return Rejection("INVALID_AMOUNT", "breakage and contribution must not be negative", currency)
    wager = state.player.open_wagers.get(wager_id)
    if wager is None:
        return _closed_wager_refusal(state, wager_id, currency, debit_entry)
    if wager.currency != currency:
        return Rejection("CURRENCY_MISMATCH", f"wager {wager_id} is in {wager.currency}", currency)
    if command.contribution_micro > wager.amount_minor * MICRO_PER_MINOR:
        return Rejection("INVALID_AMOUNT", "the contribution is larger than the wager", currency)
    if above := above_max_award(wager, command.house_win_minor):
        return Rejection("INVALID_AMOUNT", above, currency)
    if problem := unproven(command, wager.amount_minor, awards):
        return Rejection("JACKPOT_UNPROVEN", problem[:500], currency)
    balance = state.player.balances_minor[currency]
    settled = _settled(state.player, command, common, command.wager_id, command.jackpot_win_minor, balance)
    after = command.remainder_after_micro
    left = None if after is None else Remainder(currency, after, wager_id)
    return settled, *_stranded_at_close(state.player, wager, left, now_ms, common, settled.balance_after_minor)


def _stranded_at_close(
    player: PlayerState, wager, left: Remainder | None, now_ms: int, common: dict[str, Any], balance: int
) -> tuple[RemainderCredited, ...]:
    """The credit of the remainder a closing wager leaves (`left`) when the player can no longer complete it: the
    account closed, or self-excluded, while the wager was open."""
    reason = remainders.stranding_reason(player, is_excluded(player, now_ms))
    if reason is None or left is None or left.micro == 0 or not wager.game:
        return ()
    return (remainders.credit(player, left, wager.game, reason, common, balance),)


def refund_wager(
    state: WalletState, command: RefundWager, now_ms: int, common: dict[str, Any], debit_entry, awards: Awards
) -> tuple[WagerRefunded | RemainderCredited, ...] | Rejection:
    """`awards` is the wager rules' common argument; a refund pays no pool share and needs none."""
    currency, wager_id = command.currency, str(command.wager_id)
    wager = state.player.open_wagers.get(wager_id)
    if wager is None:
        return _closed_wager_refusal(state, wager_id, currency, debit_entry)
    if wager.currency != currency:
        return Rejection("CURRENCY_MISMATCH", f"wager {wager_id} is in {wager.currency}", currency)
    refunded = WagerRefunded(
        **common,
        currency=currency,
        wager_id=command.wager_id,
        amount_minor=wager.amount_minor,
        reason=command.reason,
        balance_after_minor=state.player.balances_minor[currency] + wager.amount_minor,
        postings=postings.wager_refund(state.player.player_id, wager.amount_minor),
    )
    carried = state.player.remainders.get(wager.game)
    left = carried if carried is not None and carried.held_by == wager_id else None
    return refunded, *_stranded_at_close(state.player, wager, left, now_ms, common, refunded.balance_after_minor)


def set_limit(state: WalletState, command: SetLimit, now_ms: int, common: dict[str, Any]) -> LimitSet | Rejection:
    currency, amount = command.currency, command.amount_minor
    if refusal := _amount_refusal(0 if amount is None else amount, currency, zero_allowed=True):
        return refusal
    rule = state.player.limits.get(limit_key(currency, command.kind, command.period))
    current = limits.effective_limit(rule, now_ms)
    delay_ms = limits.INCREASE_DELAY_MS if limits.is_increase(current, amount) else 0
    return LimitSet(
        **common,
        currency=currency,
        kind=command.kind,
        period=command.period,
        amount_minor=amount,
        effective_at=broker_time(now_ms + delay_ms),
    )


def self_exclude(
    state: WalletState, command: SelfExclude, now_ms: int, common: dict[str, Any]
) -> tuple[SelfExcluded | RemainderCredited, ...] | Rejection:
    if command.until is not None and command.until.tzinfo is None:
        return Rejection("INVALID_REQUEST", "`until` must carry a time zone")
    if command.until is not None and epoch_ms(command.until) <= now_ms:
        return Rejection("INVALID_REQUEST", "a self-exclusion must end in the future")
    player = state.player
    credits = remainders.credits_now(player, "self-exclusion", common, dict(player.balances_minor))
    return SelfExcluded(**common, until=command.until), *credits


def close_account(
    state: WalletState, command: CloseAccount, now_ms: int, common: dict[str, Any]
) -> tuple[AccountClosed | RemainderCredited, ...]:
    """Closing is final and may be repeated; every remainder no open wager carries is credited with it."""
    player = state.player
    credits = remainders.credits_now(player, "closure", common, dict(player.balances_minor))
    return AccountClosed(**common), *credits
